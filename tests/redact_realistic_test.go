//go:build linux

package tests

// Issue 21, "Shown by": what real commands print, in a Bash tool_response.stdout, leaves no
// secret anywhere (cat .env, env, git remote -v with credentials, kubectl config view --raw,
// aws configure list, aws sts get-session-token --output text and json); the control with
// redaction off stores every one of them.

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// realOutputs are command lines and what they printed; realSecrets are the secrets in them.
var realOutputs = []struct{ command, stdout string }{
	{"cat .env", `# app settings
NODE_ENV=production
PORT=3000
DATABASE_URL=postgres://app:Rl9xQ2mPz7Lk@db.internal:5432/app
REDIS_PASSWORD=Ux83kdLq0Pz
STRIPE_SECRET_KEY=sk_live_51Hx8y2Zq9w4E6rT8yU0iO2pA4sD6fG8h
OPENAI_API_KEY=sk-proj-Rl9xQ2mPz7LkUx83kdLq0PzAb3dE5gH7jK9mN1pQ3sT5
JWT_SECRET=9f8e7d6c5b4a3210fedcba98
SESSION_SECRET="q7Wz2Lp9Xn4Vb8Ks1Jd6"
DB_PASS=Tr0ub4dor3
MAILGUN_KEY=key-3ax6xnjp29jd6fds4gc373sgvjxteol0
`},
	{"env | sort", `AWS_ACCESS_KEY_ID=AKIAZ7Q2W3E4R5T6Y7U9
AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9Kq2Lm4Q
GITHUB_TOKEN=ghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oQ
HOME=/home/dev
MYSQL_PWD=qu1ck-Brown-f0x-9
NPM_TOKEN=npm_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr79
PATH=/usr/local/bin:/usr/bin:/bin
PWD=/home/dev/app
SLACK_BOT_TOKEN=xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgz
`},
	{"git remote -v", `origin	https://x-access-token:ghs_Kq3Wm9Zr1Lp7Xn5Vb2Ks8Jd4Hf0Gc6Ya3Ue9Ip@github.com/acme/app.git (fetch)
origin	https://x-access-token:ghs_Kq3Wm9Zr1Lp7Xn5Vb2Ks8Jd4Hf0Gc6Ya3Ue9Ip@github.com/acme/app.git (push)
upstream	https://deploy:Zx9Yw8Vu7Ts6Rq5Po4Nm@gitlab.com/acme/app.git (fetch)
upstream	https://deploy:Zx9Yw8Vu7Ts6Rq5Po4Nm@gitlab.com/acme/app.git (push)
`},
	{"kubectl config view --raw", `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUREekNDQWZlZ0F3SUJBZ0lVQ2FuYXJ5Q2VydGlmaWNhdGVCb2R5MDAwMDAwMDA=
    server: https://10.0.0.1:6443
  name: prod
contexts:
- context:
    cluster: prod
    user: admin
  name: prod-admin
current-context: prod-admin
kind: Config
users:
- name: admin
  user:
    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBM1R6Mm1yN1NaaUFNZlF5dXZCak05T2k4QjJWYlc1ZDZ4a3FGdjFKblBCSUZLNFV4Ci0tLS0tRU5EIFJTQSBQUklWQVRFIEtFWS0tLS0tCg==
    token: eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0.Kub3Sig_9xQ2mPz7LkUx83kdLq0Pz
- name: ci
  user:
    password: Kub3Pa55w0rd
    username: ci
`},
	{"aws configure list", `      Name                    Value             Type    Location
      ----                    -----             ----    --------
   profile                <not set>             None    None
access_key     ****************Y7U9 shared-credentials-file
secret_key     ****************Lm4Q shared-credentials-file
    region                us-east-1      config-file    ~/.aws/config
`},
	{"aws sts get-session-token --output text", "CREDENTIALS\tASIAQ3RZ5XKP7WM2LN4C\t2026-12-02T10:00:00+00:00\tTz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl5\tIQoJb3JpZ2luX2VjEHYaCXVzLWVhc3QtMSJHMEUCIQD6mY0Kq2Lm4NcZ8Xb5Vd7Fg1Hj3Kl9Pq2Rs4Tu6Wx8Yz0AbCdEfGhIjKlMnOpQrStUvWxYzAB\n"},
	{"aws sts get-session-token --output json", `{
    "Credentials": {
        "AccessKeyId": "ASIAQ3RZ5XKP7WM2LN4D",
        "SecretAccessKey": "Rz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl6",
        "SessionToken": "FwoGZXIvYXdzEBYaDHl0c3Rva2VuZXhhbXBsZSKzAQmY0Kq2Lm4NcZ8Xb5Vd7Fg1Hj3Kl9Pq2Rs4Tu6Wx8Yz0AbCdEfGh+IjKlMn/OpQr==",
        "Expiration": "2026-12-02T10:00:00+00:00"
    }
}
`},
}

var realSecrets = []string{
	"Rl9xQ2mPz7Lk", "Ux83kdLq0Pz", "sk_live_51Hx8y2Zq9w4E6rT8yU0iO2pA4sD6fG8h", "Rl9xQ2mPz7LkUx83kdLq0PzAb3dE5gH7jK9mN1pQ3sT5",
	"9f8e7d6c5b4a3210fedcba98", "q7Wz2Lp9Xn4Vb8Ks1Jd6", "Tr0ub4dor3", "3ax6xnjp29jd6fds4gc373sgvjxteol0",
	"AKIAZ7Q2W3E4R5T6Y7U9", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9Kq2Lm4Q", "ghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oQ",
	"qu1ck-Brown-f0x-9", "npm_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr79", "pdFZKVeTuE8sk7oOcBrzbqgz",
	"ghs_Kq3Wm9Zr1Lp7Xn5Vb2Ks8Jd4Hf0Gc6Ya3Ue9Ip", "Zx9Yw8Vu7Ts6Rq5Po4Nm",
	"LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVB", "Kub3Sig_9xQ2mPz7LkUx83kdLq0Pz", "Kub3Pa55w0rd",
	"ASIAQ3RZ5XKP7WM2LN4C", "Tz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl5", "EHYaCXVzLWVhc3QtMSJHMEUCIQD6mY0Kq2Lm4NcZ8Xb5Vd7Fg1Hj3Kl9Pq2Rs4",
	"ASIAQ3RZ5XKP7WM2LN4D", "Rz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl6", "EBYaDHl0c3Rva2VuZXhhbXBsZSKzAQmY0Kq2Lm4NcZ8Xb5Vd7Fg1Hj3Kl9",
}

func feedRealOutputs(t *testing.T, h *harness, sid string) {
	h.prompt(sid, "quokka: why does the deploy fail? check the config")
	for i, o := range realOutputs {
		f := h.base(sid)
		f["tool_use_id"] = fmt.Sprintf("toolu_real_%d", i)
		f["tool_input"] = map[string]any{"command": o.command, "description": "quokka look"}
		f["tool_response"] = map[string]any{"stdout": o.stdout, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
		if out := h.hookMode(nodeJSON(fixtureEvent(t, "PostToolUse-Bash.json", f)), nil); out != "" {
			t.Fatalf("PostToolUse printed %q", out)
		}
	}
}

func TestRedactRealistic_CommandOutputsKeepNoSecret(t *testing.T) {
	track(t)
	t.Parallel()
	r := runCaptured(t, nil, "realistic", func(h *harness) { feedRealOutputs(t, h, "realistic") })
	for _, s := range realSecrets {
		for where, b := range map[string][]byte{"a file under $WORK": r.stored, "the observer's stdin or argv": []byte(r.observer), "an output": []byte(r.outputs)} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", where, s)
			}
		}
	}
	// What is no secret is kept: the commands, the hosts, the settings around the secrets.
	for _, keep := range []string{"kubectl config view --raw", "db.internal:5432", "NODE_ENV=production", "certificate-authority-data: LS0t", "us-east-1", "PWD=/home/dev/app"} {
		if !bytes.Contains(r.stored, []byte(keep)) {
			t.Errorf("the data dir lost %q, which is no secret", keep)
		}
	}
	t.Logf("%d outputs, %d secrets: none stored, sent or shown", len(realOutputs), len(realSecrets))
}

func TestRedactRealistic_Control_RedactionOffStoresEverySecret(t *testing.T) {
	track(t)
	t.Parallel()
	r := runCaptured(t, map[string]string{"CLAUDE_MEM_REDACT_SECRETS": "false"}, "realistic", func(h *harness) { feedRealOutputs(t, h, "realistic") })
	var missing []string
	for _, s := range realSecrets {
		if !bytes.Contains(r.stored, []byte(s)) {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		t.Errorf("with redaction off the data dir lacks %d of %d secrets: %s", len(missing), len(realSecrets), strings.Join(missing, " "))
	}
}
