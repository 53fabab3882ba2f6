// Package remote is the sync server's client (DESIGN §25): it connects with the transport
// rules of §25 (TLS verified for any host but loopback or a unix socket), pushes a machine's
// records idempotently by global id, pulls what row-level security lets this person read in
// an order that never skips a transaction committing late, and runs the team operations.
// It speaks only wire's vocabulary; the server enforces who reads and writes what.
package remote

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/claude-mem/claude-mem-go/sync/server"
)

// What a connection can fail with, each a one-line cause a doctor finding can name.
var (
	ErrBadURL      = errors.New("the sync URL is not a valid postgres:// URL")
	ErrUnreachable = errors.New("the sync server is unreachable")
	ErrTLS         = errors.New("TLS with the sync server failed (refused, or its certificate is not trusted)")
	ErrAuth        = errors.New("the sync server refused the login (wrong password or role)")
	ErrPlaintext   = errors.New("plaintext to a host that is not loopback is refused: use sslmode=verify-full (or say sslmode=disable to mean plaintext)")
	ErrDenied      = errors.New("the sync server denied this role (is it a person, GRANT claude_mem_user? an admin, GRANT claude_mem_admin?)")
	ErrServer      = errors.New("the sync server failed")
	ErrRestored    = errors.New("the sync server holds records restored from another server: an admin runs `claude-mem sync init`")
	ErrSchemaOlder = server.ErrSchemaOlder
	ErrSchemaNewer = server.ErrSchemaNewer
)

// Error is a failed connection: its kind (errors.Is one of the Err values above), the URL
// without its password, and the cause's text, from which the password was removed too.
type Error struct {
	Kind  error
	URL   string
	Cause string
}

func (e *Error) Error() string {
	if e.Cause == "" {
		return fmt.Sprintf("sync server %s: %v", e.URL, e.Kind)
	}
	return fmt.Sprintf("sync server %s: %v: %s", e.URL, e.Kind, e.Cause)
}

// Unwrap is the kind only: the cause stays text, so nothing unscrubbed can be reached.
func (e *Error) Unwrap() error { return e.Kind }

// connectTimeout bounds a connection attempt whose URL sets no connect_timeout.
const connectTimeout = 10 * time.Second

// Client is one connection to a sync server, as one person.
type Client struct {
	conn    *pgx.Conn
	shown   string   // the URL without its password
	secrets []string // the passwords, only to scrub them from an error's text
	person  string   // the role this connection logged in as (session_user)
}

// Connect connects to the server at rawURL (postgres:// or postgresql://) as one person
// and checks its schema. The password comes from the URL, PGPASSWORD or the passfile
// (libpq's conventions, as pgx reads them); it is in no error. For any host but loopback or
// a unix socket, a URL without sslmode gets sslmode=verify-full; one whose sslmode may fall
// back to plaintext silently (allow, prefer) is refused, while sslmode=disable, said
// outright, is honoured.
func Connect(ctx context.Context, rawURL string) (*Client, error) {
	c, err := dial(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	if err := server.Check(ctx, c.conn); err != nil {
		c.conn.Close(ctx)
		return nil, c.schemaErr(err)
	}
	if err := c.conn.QueryRow(ctx, "SELECT session_user").Scan(&c.person); err != nil {
		c.conn.Close(ctx)
		return nil, c.fail(err)
	}
	return c, nil
}

// Install connects to the server at rawURL as Connect does and installs or upgrades the
// schema (`claude-mem sync init`, as the server's admin: see server.Install).
func Install(ctx context.Context, rawURL string) (server.Installed, error) {
	c, err := dial(ctx, rawURL)
	if err != nil {
		return server.Installed{}, err
	}
	defer c.conn.Close(ctx)
	done, err := server.Install(ctx, c.conn)
	if err != nil {
		return done, c.schemaErr(err)
	}
	return done, nil
}

// schemaErr is a schema check's or install's error as an *Error of its kind.
func (c *Client) schemaErr(err error) error {
	var se *server.SchemaError
	if errors.As(err, &se) {
		return &Error{Kind: se.Unwrap(), URL: c.shown, Cause: se.Error()}
	}
	return c.fail(err)
}

// dial opens the connection with the transport rules of Connect.
func dial(ctx context.Context, rawURL string) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		// url.Parse's error quotes the URL, password and all: say nothing of it.
		return nil, &Error{Kind: ErrBadURL, URL: "(not shown)"}
	}
	shown := redacted(u)
	secrets := urlSecrets(u)
	fail := func(kind error, cause error) error {
		e := &Error{Kind: kind, URL: shown}
		if cause != nil {
			e.Cause = scrub(cause.Error(), secrets...)
		}
		return e
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fail(ErrBadURL, err)
	}
	mode, said := u.Query()["sslmode"]
	if remoteHost(cfg) != "" && !said {
		q := u.Query()
		q.Set("sslmode", "verify-full")
		u.RawQuery = q.Encode()
		if cfg, err = pgx.ParseConfig(u.String()); err != nil {
			return nil, fail(ErrBadURL, err)
		}
	}
	// Judged on what pgx will do, not on the URL alone: a service file (service=, or
	// PGSERVICE) can set sslmode too, and allow or prefer add a plaintext fallback.
	if h := plaintextRemote(cfg); h != "" && !(said && mode[0] == "disable") {
		return nil, fail(ErrPlaintext, fmt.Errorf("host %s may be reached without TLS", h))
	}
	// The password may also have come from PGPASSWORD or the passfile.
	secrets = append(secrets, cfg.Password)
	// A push stalled with its transaction open holds back every pull (they read below the
	// oldest running transaction that writes records): the server ends it after a minute,
	// unless the URL says.
	for k, v := range map[string]string{"idle_in_transaction_session_timeout": "60s", "application_name": "claude-mem sync"} {
		if _, ok := cfg.RuntimeParams[k]; !ok {
			cfg.RuntimeParams[k] = v
		}
	}
	// A typo'd host or a dropped packet fails within this unless the URL says otherwise.
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fail(kindOf(err), err)
	}
	return &Client{conn: conn, shown: shown, secrets: secrets}, nil
}

// Role is the server role rawURL logs in as, by libpq's rules (the URL's user, else
// PGUSER, else the OS user), read without connecting; "" when rawURL is empty or cannot be
// read. It is whom "--author NAME" means by one's own name.
func Role(rawURL string) string {
	if rawURL == "" {
		return ""
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return ""
	}
	return cfg.User
}

// fail is an error of an operation on the open connection, as an *Error of its kind.
func (c *Client) fail(err error) error {
	return &Error{Kind: kindOf(err), URL: c.shown, Cause: scrub(err.Error(), c.secrets...)}
}

// urlSecrets are the passwords u holds.
func urlSecrets(u *url.URL) []string {
	pw, _ := u.User.Password()
	q := u.Query()
	return []string{pw, q.Get("password"), q.Get("sslpassword")}
}

// redacted is u with every password in it (userinfo, password=, sslpassword=) replaced.
func redacted(u *url.URL) string {
	r := *u
	q := r.Query()
	for _, k := range []string{"password", "sslpassword"} {
		if q.Has(k) {
			q.Set(k, "xxxxx")
		}
	}
	r.RawQuery = q.Encode()
	return r.Redacted()
}

// Close closes the connection.
func (c *Client) Close(ctx context.Context) error { return c.conn.Close(ctx) }

// Person is the role this client logged in as: the owner of every row it pushes.
func (c *Client) Person() string { return c.person }

// URL is the server's URL without its password, for status lines.
func (c *Client) URL() string { return c.shown }

// remoteHost is the first host of cfg (its fallbacks too) that is neither a unix socket nor
// loopback, "" when there is none.
func remoteHost(cfg *pgx.ConnConfig) string {
	hosts := []string{cfg.Host}
	for _, f := range cfg.Fallbacks {
		hosts = append(hosts, f.Host)
	}
	for _, h := range hosts {
		if isRemote(h) {
			return h
		}
	}
	return ""
}

// isRemote says whether host is neither a unix socket nor loopback. A name other than
// localhost counts as remote: what it resolves to can change.
func isRemote(host string) bool {
	if strings.HasPrefix(host, "/") || host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// plaintextRemote is the first host, of cfg or a fallback, that is neither loopback nor a
// unix socket and would be reached without TLS; "" when there is none.
func plaintextRemote(cfg *pgx.ConnConfig) string {
	type try struct {
		host string
		tls  *tls.Config
	}
	tries := []try{{cfg.Host, cfg.TLSConfig}}
	for _, f := range cfg.Fallbacks {
		tries = append(tries, try{f.Host, f.TLSConfig})
	}
	for _, t := range tries {
		if t.tls == nil && isRemote(t.host) {
			return t.host
		}
	}
	return ""
}

// kindOf sorts a connection error into its kind.
func kindOf(err error) error {
	var pe *pgconn.PgError
	var cve *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var ae tls.AlertError
	var rhe tls.RecordHeaderError
	var ne net.Error
	switch {
	case errors.As(err, &pe) && strings.HasPrefix(pe.Code, "28"): // invalid authorization
		return ErrAuth
	case errors.As(err, &cve), errors.As(err, &ua), errors.As(err, &he), errors.As(err, &ci),
		errors.As(err, &ae), errors.As(err, &rhe),
		// pgconn's own words when the server answers the TLS request with no.
		strings.Contains(err.Error(), "server refused TLS connection"):
		return ErrTLS
	case errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")):
		// connection exception; the server shutting down or ending this session
		return ErrUnreachable
	case errors.As(err, &pe) && pe.Code == "42501": // insufficient privilege
		return ErrDenied
	case errors.As(err, &pe):
		return ErrServer
	case strings.Contains(err.Error(), "SASL"):
		// pgconn's client side of SCRAM: a server proof that does not verify.
		return ErrAuth
	case errors.As(err, &ne), errors.Is(err, context.DeadlineExceeded):
		return ErrUnreachable
	}
	return ErrServer
}

// scrub removes the passwords from text and puts it on one line (pgconn gives a line per
// address tried; the same line twice says nothing more).
func scrub(text string, passwords ...string) string {
	for _, p := range passwords {
		if p != "" {
			text = strings.ReplaceAll(text, p, "xxxxx")
		}
	}
	var lines []string
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " ")
}
