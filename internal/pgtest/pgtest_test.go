package pgtest

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The server answers over the socket and over TLS verified against its CA; the same TLS
// connection trusting a stranger CA fails (the control that the check is real).
func TestServerSocketAndTLS(t *testing.T) {
	s := Start(t)
	ctx := context.Background()
	s.CreatePerson(t, "alice", "alice-pw")

	c, err := pgx.Connect(ctx, s.SocketURL("alice", "alice-pw", "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	var who string
	if err := c.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil || who != "alice" {
		t.Fatalf("current_user = %q, %v", who, err)
	}
	c.Close(ctx)

	for _, host := range []string{"127.0.0.1", "localhost"} {
		q := url.Values{"sslmode": {"verify-full"}, "sslrootcert": {s.CAFile}}
		c, err := pgx.Connect(ctx, s.TCPURL(host, "alice", "alice-pw", "postgres", q))
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		var ssl bool
		if err := c.QueryRow(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl); err != nil || !ssl {
			t.Fatalf("%s: ssl = %v, %v", host, ssl, err)
		}
		c.Close(ctx)
	}

	q := url.Values{"sslmode": {"verify-full"}, "sslrootcert": {StrangerCA(t)}}
	if c, err := pgx.Connect(ctx, s.TCPURL("127.0.0.1", "alice", "alice-pw", "postgres", q)); err == nil {
		c.Close(ctx)
		t.Fatal("a stranger CA was trusted")
	} else if !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("stranger CA: %v", err)
	}

	if c, err := pgx.Connect(ctx, s.SocketURL("alice", "wrong", "postgres")); err == nil {
		c.Close(ctx)
		t.Fatal("a wrong password was accepted: scram is not required")
	}
}
