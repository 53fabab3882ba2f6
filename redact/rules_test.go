package redact

import (
	"strings"
	"testing"
)

// ruleCase is one example of a rule: secret "" says in is a near miss and must come out
// unchanged; otherwise in holds secret, which must be gone, redacted under kind.
type ruleCase struct {
	kind, in, secret string
}

var ruleCases = []ruleCase{
	// anthropic
	{"anthropic", "export ANTHROPIC_API_KEY=sk-ant-api03-Xk29fLq0wPz8RtY7uV6bN5mC4xZ3aS2dF1gH0jK9lQ8wE7rT6yU5iO4pA3sD2fG1hJ0kL9zX8cV7bN6mQ5wE4r-Tz1AbCdAA", "Xk29fLq0wPz8RtY7uV6bN5mC4xZ3aS2dF1gH0jK9lQ8wE7rT6yU5iO4pA3sD2fG1hJ0kL9zX8cV7bN6mQ5wE4r-Tz1AbCdAA"},
	{"anthropic", `{"error":"invalid x-api-key","key":"sk-ant-oat01-Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0Ye-AbCdEfGhIjKlMnOpQrStUvWx"}`, "Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0Ye-AbCdEfGhIjKlMnOpQrStUvWx"},
	{"anthropic", "my key is sk-ant-admin01-Pq8Wm3Ln6Zx1Vb9Nc4Kd7Jf2Hg5Ts0Rw-yy, please rotate it", "Pq8Wm3Ln6Zx1Vb9Nc4Kd7Jf2Hg5Ts0Rw-yy"},
	{"anthropic", "ANTHROPIC_API_KEY=sk-ant-api03-xxxxxxxxxxxxxxxxxxxxxxxxxxxx", ""},
	{"anthropic", "Keys start with sk-ant- followed by the key type.", ""},
	// openai
	{"openai", "OPENAI_API_KEY=sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7tV9xZ1bD3fH5jL7nP9rT1vX3zB5dF7hJ9lN1pR3tV5xZ7bD9fH1jL3nP5rT7vX9zB1dF3hJ5lN7pR9tV1xZ3bD5fH7jL9", "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7tV9xZ1bD3fH5jL7nP9rT1vX3zB5dF7hJ9lN1pR3tV5xZ7bD9fH1jL3nP5rT7vX9zB1dF3hJ5lN7pR9tV1xZ3bD5fH7jL9"},
	{"openai", `openai.api_key = "sk-Tq4Wm8Zr2Lp6Xn0Vb3Ks7Jd1Hf5Gc9Ya2Ue6Io0Pl4Mk8Nj"`, "Tq4Wm8Zr2Lp6Xn0Vb3Ks7Jd1Hf5Gc9Ya2Ue6Io0Pl4Mk8Nj"},
	{"openai", "Incorrect API key provided: sk-svcacct-Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1PaSdFgHjKl0. You can find your API key at", "Zx8Cv7Bn6Mq5Wr4Et3Yu2Io1PaSdFgHjKl0"},
	{"openai", `<div class="sk-circle-bounce-delay-animation1"></div>`, ""},
	{"openai", "python -m pip install --mask-sk-learn-compatibility-wrapper", ""},
	{"openai", "task-sk-list-items done", ""},
	// github
	{"github", "git clone https://ghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oP@github.com/acme/app.git", "ghp_R8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oP"},
	{"github", "GITHUB_TOKEN: gho_16C7e42F292c6912E7710c838347Ae178B4aQw", "gho_16C7e42F292c6912E7710c838347Ae178B4aQw"},
	{"github", "token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX01 expires in 30 days", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX01"},
	{"github", "Authorization: token ghs_Kq3Wm9Zr1Lp7Xn5Vb2Ks8Jd4Hf0Gc6Ya3Ue9Io", "ghs_Kq3Wm9Zr1Lp7Xn5Vb2Ks8Jd4Hf0Gc6Ya3Ue9Io"},
	{"github", "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", ""},
	{"github", "see ghp_ tokens in the docs; ghs_short", ""},
	// aws_access_key_id
	{"aws_access_key_id", "AWS_ACCESS_KEY_ID=AKIAZ7Q2W3E4R5T6Y7U8", "AKIAZ7Q2W3E4R5T6Y7U8"},
	{"aws_access_key_id", `"AccessKeyId": "ASIAQ3RZ5XKP7WM2LN4B",`, "ASIAQ3RZ5XKP7WM2LN4B"},
	{"aws_access_key_id", "AWS access key ids start with AKIA or ASIA.", ""},
	{"aws_access_key_id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", ""},
	// aws_secret
	{"aws_secret", "AWS_SECRET_ACCESS_KEY=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", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9Kq2Lm4N"},
	{"aws_secret", `"SecretAccessKey": "9drTJvcXLB89Zq1KeyzQ+Zn4T6yU8iO0pA2sD4fG",`, "9drTJvcXLB89Zq1KeyzQ+Zn4T6yU8iO0pA2sD4fG"},
	{"aws_secret", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}", ""},
	{"aws_secret", "CREDENTIALS\tASIAQ3RZ5XKP7WM2LN4B\t2026-12-01T22:00:00+00:00\tTz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl4\tIQoJb3JpZ2luX2VjEHYaCXVz", "Tz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl4"},
	{"aws_secret", "|  SecretAccessKey |  Tz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl4  |", "Tz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl4"},
	{"aws_secret", "ACCESSKEY\tAKIAIOSFODNN7EXAMPLE\t2026-11-30T10:00:00Z\tActive\tdeploy-bot", ""},
	// aws_session_token
	{"aws_session_token", "aws_session_token = IQoJb3JpZ2luX2VjEHYaCXVzLWVhc3QtMSJHMEUCIQD6mY0Kq2Lm4NcZ8Xb5Vd7Fg1Hj3Kl9Pq2Rs4Tu6Wx8Yz0AbCdEfGhIjKlMnOpQrStUvWxYz", "EHYaCXVzLWVhc3QtMSJHMEUCIQD6mY0Kq2Lm4NcZ8Xb5Vd7Fg1Hj3Kl9Pq2Rs4Tu6Wx8Yz0AbCdEfGhIjKlMnOpQrStUvWxYz"},
	{"aws_session_token", `"SessionToken": "FwoGZXIvYXdzEBYaDHl0c3Rva2VuZXhhbXBsZSKzAQmY0Kq2Lm4NcZ8Xb5Vd7Fg1Hj3Kl9Pq2Rs4Tu6Wx8Yz0AbCdEfGh+IjKlMn/OpQr=="`, "EBYaDHl0c3Rva2VuZXhhbXBsZSKzAQmY0Kq2Lm4NcZ8Xb5Vd7Fg1Hj3Kl9Pq2Rs4Tu6Wx8Yz0AbCdEfGh+IjKlMn/OpQr=="},
	{"aws_session_token", "STS session tokens begin with IQoJb3JpZ2lu, base64 of a protobuf header.", ""},
	// cli_password
	{"cli_password", "curl -u admin:S3cretPass https://api.example.com/v1/me", "S3cretPass"},
	{"cli_password", "curl --user 'deploy:p@ss w0rd' https://registry.example.com", "p@ss w0rd"},
	{"cli_password", "curl -s --user=ci:Zq9-Lm2-Xv7 https://jenkins.example.com/api/json", "Zq9-Lm2-Xv7"},
	{"cli_password", "mysql -h db.internal -u root -pS3cr3tPw appdb", "S3cr3tPw"},
	{"cli_password", "mysqldump -uroot -p'Dump!Pass 2' shop > shop.sql", "Dump!Pass 2"},
	{"cli_password", "sshpass -p 'Hunter2Ssh!' ssh admin@10.0.0.5", "Hunter2Ssh!"},
	{"cli_password", "docker run --rm -u 1000:1000 -v $PWD:/src golang:1.26 go test ./...", ""},
	{"cli_password", "mysql -h db.internal -u root -p appdb", ""},
	{"cli_password", "git push -u origin feature/login", ""},
	{"cli_password", `sshpass -p "$SSHPASS" ssh admin@host uptime`, ""},
	// google_api_key
	{"google_api_key", `const firebaseConfig = { apiKey: "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", authDomain: "app.firebaseapp.com" }`, "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"},
	{"google_api_key", "GET https://www.googleapis.com/youtube/v3/search?part=snippet&q=go AIzaSyB1c2D3e4F5g6H7i8J9k0LmNoPqRsTuVwX", "AIzaSyB1c2D3e4F5g6H7i8J9k0LmNoPqRsTuVwX"},
	{"google_api_key", "Google API keys look like AIza followed by 35 characters.", ""},
	// gcp_private_key
	{"gcp_private_key", `{"type": "service_account", "private_key_id": "a1b2c3", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDZt4hY2mUeN0vJ\n-----END PRIVATE KEY-----\n", "client_email": "sa@p.iam.gserviceaccount.com"}`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDZt4hY2mUeN0vJ"},
	{"gcp_private_key", `{"type": "service_account", "private_key": "", "client_email": "sa@p.iam.gserviceaccount.com"}`, ""},
	// private_key
	{"private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDqRzXk4m2nUeN0vJ7XbLwKcP3sRfD1gQ9aT6uE5iO2pAAAAJg=\n-----END OPENSSH PRIVATE KEY-----\n", "QyNTUxOQAAACDqRzXk4m2nUeN0vJ7XbLwKcP3sRfD1gQ9aT6uE5iO2pAAAAJg="},
	{"private_key", "key.pem:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5CgbVQjNOy1X2oAoGCCqGSM49\n-----END EC PRIVATE KEY-----\ndone", "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5CgbVQjNOy1X2oAoGCCqGSM49"},
	{"private_key", "-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC7VJTUt9Us8cKj\n[… 9000 bytes omitted …]", "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC7VJTUt9Us8cKj"},
	{"private_key", `"tls_key":"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8B2VbW5d6xkqFv1JnPBIFK4Ux\n-----END RSA PRIVATE KEY-----\n"`, "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8B2VbW5d6xkqFv1JnPBIFK4Ux"},
	{"private_key", "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBM1R6Mm1yN1NaaUFNZlF5dXZCak05T2k4QjJWYlc1ZDZ4a3FGdjFKblBCSUZLNFV4Ci0tLS0tRU5EIFJTQSBQUklWQVRFIEtFWS0tLS0tCg==",
		"LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBM1R6Mm1yN1NaaUFNZlF5dXZCak05T2k4QjJWYlc1ZDZ4a3FGdjFKblBCSUZLNFV4"},
	{"private_key", "    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUREekNDQWZlZ0F3SUJBZ0lVQ2FuYXJ5Q2VydGlmaWNhdGVCb2R5MDAwMDAwMDA=", ""},
	{"private_key", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEVs/o5+uQbTjL3chynL4wXgUg2R9\n-----END PUBLIC KEY-----", ""},
	{"private_key", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----", ""},
	// slack
	{"slack", "curl -d token=xoxp-2048-4096-8192-0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d https://slack.com/api/auth.test", "xoxp-2048-4096-8192-0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"},
	{"slack", "SLACK_BOT_TOKEN=xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy", "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy"},
	{"slack", "SLACK_BOT_TOKEN=xoxb-your-bot-token", ""},
	// stripe
	{"stripe", `stripe.api_key = "sk_live_4eC39HqLyjWDarjtT1zdp7dcXyZ"`, "sk_live_4eC39HqLyjWDarjtT1zdp7dcXyZ"},
	{"stripe", "restricted key rk_live_51Hx8y2Zq9w4E6rT8yU0iO2pA4sD6fG8h created", "rk_live_51Hx8y2Zq9w4E6rT8yU0iO2pA4sD6fG8h"},
	{"stripe", "Use a key that starts with sk_live_ in production.", ""},
	// jwt
	{"jwt", "Cookie: session=eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"},
	{"jwt", `{"id_token":"eyJhbGciOiJub25lIn0.eyJ1c2VyIjoiYWRtaW4ifQ."}`, "eyJ1c2VyIjoiYWRtaW4ifQ."},
	{"jwt", `the JOSE header eyJhbGciOiJIUzI1NiJ9 decodes to {"alg":"HS256"}`, ""},
	// bearer
	{"bearer", "Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543", "8f14e45fceea167a5a36dedd4bea2543"},
	{"bearer", "curl -H 'authorization: Basic dXNlcjpwYXNzd29yZDEyMw==' https://api.example.com", "dXNlcjpwYXNzd29yZDEyMw=="},
	{"bearer", `{"headers": {"Authorization": "Bearer ya29.a0AfH6SMBx7zQ1-Lp9Km3Nn5Oo7Pp"}}`, "ya29.a0AfH6SMBx7zQ1-Lp9Km3Nn5Oo7Pp"},
	{"bearer", `req.Header.Set("X-Upstream", "Bearer abc123def456ghi789")`, "abc123def456ghi789"},
	{"bearer", "Bearer authentication is configured per route.", ""},
	{"bearer", `curl -H "Authorization: Bearer $TOKEN" https://api.example.com`, ""},
	{"bearer", "Authorization: Bearer <token>", ""},
	{"bearer", `token_type: "Bearer"`, ""},
	// url_userinfo
	{"url_userinfo", "MONGO_URL=mongodb+srv://admin:S3cr3tP%40ss@cluster0.abcde.mongodb.net/db", "S3cr3tP%40ss"},
	{"url_userinfo", "remote: https://x-access-token:Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2@github.com/acme/repo.git", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"},
	{"url_userinfo", "git push https://oauth2:Ab1Cd2Ef3Gh4Ij5Kl6Mn@gitlab.com/acme/repo.git", "Ab1Cd2Ef3Gh4Ij5Kl6Mn"},
	{"url_userinfo", "SENTRY_DSN=https://a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6@o123.ingest.sentry.io/4567", "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"},
	{"url_userinfo", "redis://:p4ssw0rdRedis@localhost:6379/0", "p4ssw0rdRedis"},
	{"url_userinfo", "git clone ssh://git@github.com/acme/app.git", ""},
	{"url_userinfo", "open https://alice@example.com/profile", ""},
	{"url_userinfo", "see https://example.com/users/alice@example.com for details", ""},
	{"url_userinfo", "listening on http://localhost:8080/api", ""},
	// url_query
	{"url_query", "POST https://hooks.example.com/trigger?token=5f2b9c1e8a7d4036b1e9f0a2c3d4e5f6 200", "5f2b9c1e8a7d4036b1e9f0a2c3d4e5f6"},
	{"url_query", "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sr=b&sig=K8v%2F3xQ9mZ2wLp5Rt7Yb1Nc4Hd6Jf0Ge8Ua3Ws5Xe%3D", "K8v%2F3xQ9mZ2wLp5Rt7Yb1Nc4Hd6Jf0Ge8Ua3Ws5Xe%3D"},
	{"url_query", "connecting to wss://stream.example.com/ws?access_token=4d7e1f0a9b8c2d3e", "4d7e1f0a9b8c2d3e"},
	{"url_query", "GET /search?q=token&page=2&sort=desc", ""},
	{"url_query", "https://example.com/api?key=value", ""},
	// assignment
	{"assignment", "DB_PASSWORD=hunter2xyz", "hunter2xyz"},
	{"assignment", `"api_key": "abcd1234efgh5678ijkl",`, "abcd1234efgh5678ijkl"},
	{"assignment", `export SECRET_KEY='django-insecure-7h$k2!x9@q1w3e5r7t9y'`, "django-insecure-7h$k2!x9@q1w3e5r7t9y"},
	{"assignment", "  password: Tr0ub4dor-3", "Tr0ub4dor-3"},
	{"assignment", "mysql -u root --password=Sup3rS3cret! appdb", "Sup3rS3cret!"},
	{"assignment", `client_secret = "GOCSPX-1a2B3c4D5e6F7g8H9i0J"`, "GOCSPX-1a2B3c4D5e6F7g8H9i0J"},
	{"assignment", "PGPASSWORD=pg_pass_2024 psql -h localhost", "pg_pass_2024"},
	{"assignment", `token := "tok_9f8e7d6c5b4a3210"`, "tok_9f8e7d6c5b4a3210"},
	{"assignment", "auth.password = Wint3r!sComing", "Wint3r!sComing"},
	{"npm", "//registry.npmjs.org/:_authToken=npm_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78", "npm_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78"},
	{"assignment", "REDIS_PASSWORD=correcthorsebattery", "correcthorsebattery"},
	{"assignment", "DB_PASS=Sup3rPassw0rd", "Sup3rPassw0rd"},
	{"assignment", "export MYSQL_PWD=qu1ck-Brown-f0x", "qu1ck-Brown-f0x"},
	{"assignment", "STRIPE_KEY=rk_test_9f8e7d6c5b4a", "rk_test_9f8e7d6c5b4a"},
	{"assignment", "database:\n  host: db.internal\n  password: correcthorsebattery\n", "correcthorsebattery"},
	{"assignment", "steps:\n- token: zyxwvutsrqponm\n", "zyxwvutsrqponm"},
	{"assignment", `[server]\nsecret = "s3cr3t-value-77"`, "s3cr3t-value-77"},
	{"assignment", "client_secret: 'q8W-z2X-v5B-n1M'", "q8W-z2X-v5B-n1M"},
	{"assignment", `{"stdout":"DB_PASSWORD=hunter2xyz\nAPI_TOKEN=abc123def456\n"}`, "hunter2xyz"},
	{"assignment", `{"content":"{\"api_key\": \"abcd1234efgh5678\"}"}`, "abcd1234efgh5678"},
	{"assignment", "The password must be at least 12 characters and include a symbol.", ""},
	{"assignment", "Reset your password: click the link we sent.", ""},
	{"assignment", "Password: required", ""},
	{"assignment", "password=<your-password>", ""},
	{"assignment", "token=${TOKEN}", ""},
	{"assignment", "api_key=xxx", ""},
	{"assignment", "API_KEY=YOUR_API_KEY", ""},
	{"assignment", "password: changeme", ""},
	{"assignment", `"api_key": "your-api-key-here"`, ""},
	{"assignment", "PASSWORD=********", ""},
	{"assignment", `secret: "{{ .Values.secret }}"`, ""},
	{"assignment", `token = os.environ["GITHUB_TOKEN"]`, ""},
	{"assignment", "const token = generateToken(user)", ""},
	{"assignment", "max_tokens: 4096", ""},
	{"assignment", `"usage": {"input_tokens": 123456, "output_tokens": 678}`, ""},
	{"assignment", "secretName: tls-cert-prod", ""},
	{"assignment", `secret_name = "prod/db/credentials"`, ""},
	{"assignment", "passwordless login is enabled for admins", ""},
	{"assignment", `if token == "" {`, ""},
	{"assignment", "token: ${{ secrets.GITHUB_TOKEN }}", ""},
	{"assignment", "password = getpass.getpass()", ""},
	{"assignment", "def authenticate(self, token: str) -> bool:", ""},
	{"assignment", "constructor(private readonly token: TokenService) {}", ""},
	{"assignment", "let api_key = std::env::var(\"API_KEY\")?;", ""},
	{"assignment", "access_key: ${AWS_ACCESS_KEY_ID}", ""},
	{"assignment", "tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")", ""},
	{"assignment", "accessToken = response.data.accessToken", ""},
	{"assignment", "token=%s", ""},
	{"assignment", "password=null", ""},
	{"assignment", "PWD=/home/dev/project OLDPWD=/home/dev", ""},
	{"assignment", "use --bypass=cache for a cold build", ""},
	{"assignment", "PRIMARY_KEY=id", ""},
	{"assignment", "sort_key = created_at", ""},
	// gitlab
	{"gitlab", "git push https://oauth2:glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn@gitlab.com/acme/repo.git", "glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn"},
	{"gitlab", "CI_JOB=glcbt-64_Zx9Yw8Vu7Ts6Rq5Po4Nm3L and gldt-Qm7Zp2Lx9Vb4Nc8Kd1Jf", "Zx9Yw8Vu7Ts6Rq5Po4Nm3L"},
	{"gitlab", "GITLAB_TOKEN=glpat-xxxxxxxxxxxxxxxxxxxx", ""},
	{"gitlab", "tokens begin with glpat- or glrt-", ""},
	// npm
	{"npm", "NPM_TOKEN: npm_Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0YeAbCd", "npm_Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0YeAbCd"},
	{"npm", "run npm_config_registry=https://registry.npmjs.org", ""},
	// sendgrid
	{"sendgrid", "SENDGRID=SG.Ab1Cd2Ef3Gh4Ij5Kl6Mn7O.Pq8Rs9Tu0Vw1Xy2Za3Bc4De5Fg6Hi7Jk8Lm9No0Pq1Rs2T", "Pq8Rs9Tu0Vw1Xy2Za3Bc4De5Fg6Hi7Jk8Lm9No0Pq1Rs2T"},
	{"sendgrid", "see SG.setApiKey(process.env.KEY)", ""},
	// huggingface
	{"huggingface", "HF_TOKEN=hf_QmZpLxVbNcKdJfHgTsRwYeAbCdEfGhIjKl", "hf_QmZpLxVbNcKdJfHgTsRwYeAbCdEfGhIjKl"},
	{"huggingface", "from huggingface_hub import hf_hub_download", ""},
	// digitalocean
	{"digitalocean", "DIGITALOCEAN_TOKEN=dop_v1_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9", "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"},
	{"digitalocean", "prefix dop_v1_ then 64 hex digits", ""},
	// shopify
	{"shopify", "X-Shopify-Access-Token: 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", "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"},
	{"shopify", "shpat_ tokens are per store", ""},
	// pypi
	{"pypi", "password = pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlsz", "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlsz"},
	{"pypi", "upload tokens start with pypi-AgEIcHlwaS5vcmc", ""},
	// twilio
	{"twilio", "TWILIO_API_KEY=SK0a1b2c3d4e5f60718293a4b5c6d7e8f9", "SK0a1b2c3d4e5f60718293a4b5c6d7e8f9"},
	{"twilio", "SKU 1234 SKIPPED", ""},
	// mailgun
	{"mailgun", "api:key-0a1b2c3d4e5f60718293a4b5c6d7e8f9", "key-0a1b2c3d4e5f60718293a4b5c6d7e8f9"},
	{"mailgun", "press key-enter to continue", ""},
	// atlassian
	{"atlassian", "JIRA_API_TOKEN=ATATT3xFfGF0" + strings.Repeat("Qm7Zp2Lx9Vb4Nc8Kd1Jf", 9) + "=A1B2C3D4", "xFfGF0Qm7Zp2Lx9Vb4Nc8Kd1Jf"},
	{"atlassian", "ATATT3 is the prefix", ""},
	// linear
	{"linear", "LINEAR_API_KEY=lin_api_Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0YeAbCdEfGh", "lin_api_Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0YeAbCdEfGh"},
	{"linear", "lin_api_key is a column", ""},
	// doppler
	{"doppler", "DOPPLER_TOKEN=dp.pt.Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0YeAbCdEfGhIjK", "Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0YeAbCdEfGhIjK"},
	{"doppler", "a dp.pt. token", ""},
	// postman
	{"postman", "x-api-key: PMAK-0a1b2c3d4e5f60718293a4b5-c6d7e8f90a1b2c3d4e5f60718293a4b5c6", "0a1b2c3d4e5f60718293a4b5-c6d7e8f90a1b2c3d4e5f60718293a4b5c6"},
	{"postman", "PMAK-keys rotate", ""},
	// age
	{"age", "# created\nAGE-SECRET-KEY-1QQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE6MU", "AGE-SECRET-KEY-1QQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE6MU"},
	{"age", "age-keygen prints AGE-SECRET-KEY-1…", ""},
	// databricks
	{"databricks", "DATABRICKS_TOKEN=dapi0a1b2c3d4e5f60718293a4b5c6d7e8f9", "dapi0a1b2c3d4e5f60718293a4b5c6d7e8f9"},
	{"databricks", "dapient wisdom", ""},
	// slack app-level, AWS console CSV, a key/token/secret name with a generated value
	{"slack", "SLACK_APP_TOKEN=xapp-1-A0123456789-1234567890123-0a1b2c3d4e5f6a7b8c9d", "xapp-1-A0123456789-1234567890123-0a1b2c3d4e5f6a7b8c9d"},
	{"aws_secret", "User name,Password,Access key ID,Secret access key,Console login link\ndeploy,,AKIAZ7Q2W3E4R5T6Y7U8,Tz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl4,https://1234.signin.aws.amazon.com/console", "Tz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl4"},
	{"aws_secret", "Access key ID,Secret access key\nAKIAZ7Q2W3E4R5T6Y7U8,Tz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl4\n", "Tz8qLm2Vb7Xn4Kd1Jf6Hg3Ws5Rc0Ye9Ua2Io8Pl4"},
	{"assignment", "encryption_key = \"3f9a1c2e7b8d4f6a0c5e9b1d2f3a4c5e6b7d8f90a1b2c3d4e5f60718293a4b5c\"", "3f9a1c2e7b8d4f6a0c5e9b1d2f3a4c5e6b7d8f90a1b2c3d4e5f60718293a4b5c"},
	{"assignment", "signingKey: Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0YeAbCdEfGh+/=", "Qm7Zp2Lx9Vb4Nc8Kd1Jf6Hg3Ts5Rw0YeAbCdEfGh+/="},
	{"assignment", "primary_key = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", ""},
	{"assignment", "cache_key: user_profile_settings_dashboard_widget_v2", ""},
	// a PEM body without its BEGIN line, or without either
	{"private_key", "q8Zt4hY2mUeN0vJ7XbLwKcP3sRfD1gQ9aT6uE5iO2pA8sD4fG7hJ1kL3zX5cV9bN\n7mQ2wE4rT6yU8iO0pA1sD3fG5hJ7kL9zX2cV4bN6mQ8wE0rT2yU4iO6pA8sD0fG2\n-----END RSA PRIVATE KEY-----\n", "7mQ2wE4rT6yU8iO0pA1sD3fG5hJ7kL9zX2cV4bN6mQ8wE0rT2yU4iO6pA8sD0fG2"},
	{"private_key", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCanaryPemKey0\nq8Zt4hY2mUeN0vJ7XbLwKcP3sRfD1gQ9aT6uE5iO2pA8sD4fG7hJ1kL3zX5cV9bN\n", "q8Zt4hY2mUeN0vJ7XbLwKcP3sRfD1gQ9aT6uE5iO2pA8sD4fG7hJ1kL3zX5cV9bN"},
	{"private_key", "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\nRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\n-----END CERTIFICATE-----", ""},
	// near misses of no rule in particular
	{"", "commit 3f9a1c2e7b8d4f6a0c5e9b1d2f3a4c5e6b7d8f90\nAuthor: Dev <dev@example.com>", ""},
	{"", "a1b2c3d Fix token refresh race in the session store", ""},
	{"", `"session_id": "7c9e6679-7425-40de-944b-e07fc1f97b1c", "tool_use_id": "toolu_01ABCDxyz4Q7mLp2Rt8Vn3Ws"`, ""},
	{"", "request_id=req_011CUJ8sq4Xm2R9yK7vZ3pLq", ""},
	{"", "Digest: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ""},
	{"", `"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR6zXVH+3tSeZ1aAQ=="`, ""},
	{"", `<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">`, ""},
	{"", "type AbstractSingletonProxyFactoryBeanConfigurationManagerImpl struct{}", ""},
	{"", "git@github.com:acme/app.git", ""},
	{"", "Fetched https://registry.npmjs.org/react/-/react-18.2.0.tgz in 120ms", ""},
	{"", "version 1.2.3-beta.4+build.5678 (go1.26.0 linux/amd64)", ""},
}

func TestRules(t *testing.T) {
	pos, neg := 0, 0
	for _, tc := range ruleCases {
		out, n := Captured(tc.in)
		if tc.secret == "" {
			neg++
			if out != tc.in || n != nil {
				t.Errorf("near miss changed (%v):\n in: %s\nout: %s", n, tc.in, out)
			}
			continue
		}
		pos++
		if strings.Contains(out, tc.secret) {
			t.Errorf("%s: secret kept:\n in: %s\nout: %s", tc.kind, tc.in, out)
		}
		if n[tc.kind] == 0 || !strings.Contains(out, "[REDACTED:"+tc.kind+"]") {
			t.Errorf("%s: counted %v:\n in: %s\nout: %s", tc.kind, n, tc.in, out)
		}
	}
	if pos < 40 || neg < 40 {
		t.Errorf("corpus has %d credentials and %d near misses, want at least 40 each", pos, neg)
	}
}

// TestRulesHaveExamples keeps the table and its examples together: every kind has a
// credential and a near miss.
func TestRulesHaveExamples(t *testing.T) {
	for _, k := range Kinds() {
		var p, n bool
		for _, tc := range ruleCases {
			if tc.kind == k {
				p, n = p || tc.secret != "", n || tc.secret == ""
			}
		}
		if !p || !n {
			t.Errorf("kind %s: credential example %v, near-miss example %v", k, p, n)
		}
	}
}

// TestCapturedIdempotent: a redacted text has nothing left to redact, so redacting twice
// (a retried journal append) neither changes it nor counts again.
func TestCapturedIdempotent(t *testing.T) {
	for _, tc := range ruleCases {
		once, _ := Captured(tc.in)
		if twice, n := Captured(once); twice != once || n != nil {
			t.Errorf("second pass changed %q to %q (%v)", once, twice, n)
		}
	}
}

// TestRuleTable checks the contract the matcher relies on: a regexp runs anchored where one
// of its rule's anchors stands, and folding anchors are lower case.
func TestRuleTable(t *testing.T) {
	for _, r := range rules() {
		if !strings.HasPrefix(r.re().String(), "^") { // compiles it: a bad expression fails here
			t.Errorf("%s: %s does not begin with ^", r.kind, r.re())
		}
		for _, a := range r.anchors {
			if a == "" || r.fold && a != strings.ToLower(a) {
				t.Errorf("%s: anchor %q", r.kind, a)
			}
		}
	}
}
