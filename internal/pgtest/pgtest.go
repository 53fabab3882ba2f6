// Package pgtest starts a real PostgreSQL server for tests (DESIGN §25): initdb with
// scram-sha-256 in a temporary directory, a unix socket, a free loopback TCP port, and TLS
// with a CA the test makes. When the tests run as root the server runs as nobody (initdb and
// postgres refuse root). Missing binaries skip a test, or fail it under CI=true.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/claude-mem/claude-mem-go/internal/testkit"
)

// BinDir holds the PostgreSQL 15 binaries of Debian's postgresql package.
const BinDir = "/usr/lib/postgresql/15/bin"

// nobody is the uid and gid the server runs as when the tests run as root.
const nobody = 65534

// Superuser is the bootstrap superuser's role name.
const Superuser = "postgres"

// StartWait bounds how long a server may take to accept connections on a loaded machine.
const StartWait = 60 * time.Second

// Server is one running PostgreSQL server.
type Server struct {
	Dir       string // the temporary directory holding everything below
	SocketDir string // the unix socket's directory
	Port      int    // the loopback TCP port (also the socket's number)
	CAFile    string // the CA that signed the server certificate, for sslrootcert
	// Hosts are the addresses it listens on: 127.0.0.1 first, then every other address
	// of this machine's interfaces (the server certificate names them all), so a test can
	// reach it as a host that is not loopback.
	Hosts []string

	password string // the superuser's
	cmd      *exec.Cmd
	done     chan struct{} // closed when the server process has exited
	stopOnce sync.Once
	mu       sync.Mutex
	dbs      int
}

// Start starts a server for t, stopped and removed when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	need(t)
	s, err := Launch()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

var shared struct {
	once sync.Once
	s    *Server
	err  error
}

// Shared is one server for all the tests of a package: started by the first test that asks,
// stopped by Main after the tests. Tests keep apart by each using its own database (NewDB).
func Shared(t testing.TB) *Server {
	t.Helper()
	need(t)
	shared.once.Do(func() { shared.s, shared.err = Launch() })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.s
}

// Main runs a package's tests (from TestMain) and stops the Shared server after them.
func Main(m *testing.M) int {
	code := m.Run()
	if shared.s != nil {
		shared.s.Stop()
	}
	return code
}

func need(t testing.TB) {
	t.Helper()
	for _, b := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(BinDir, b)); err != nil {
			testkit.Missing(t, fmt.Sprintf("no PostgreSQL 15 at %s (.ci/run installs Debian's postgresql package): %v", BinDir, err))
		}
	}
}

// Launch starts a server outside a test (the bench); the caller stops it. Start and Shared
// are the tests' way.
func Launch() (*Server, error) {
	if _, err := os.Stat(filepath.Join(BinDir, "postgres")); err != nil {
		return nil, fmt.Errorf("no PostgreSQL 15 at %s (.ci/run installs Debian's postgresql package): %w", BinDir, err)
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, SocketDir: filepath.Join(dir, "sock"), done: make(chan struct{})}
	if err := s.boot(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) boot() error {
	pw := make([]byte, 16)
	if _, err := rand.Read(pw); err != nil {
		return err
	}
	s.password = hex.EncodeToString(pw)
	data := filepath.Join(s.Dir, "data")
	if err := os.Mkdir(s.SocketDir, 0o700); err != nil {
		return err
	}
	// The password goes to initdb in a file: never on an argv.
	pwfile := filepath.Join(s.Dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o600); err != nil {
		return err
	}
	if err := s.own(s.Dir, s.SocketDir, pwfile); err != nil {
		return err
	}
	if out, err := s.run("initdb", "-D", data, "-U", Superuser, "--auth=scram-sha-256",
		"--pwfile="+pwfile, "--encoding=UTF8", "--locale=C", "--no-sync"); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	os.Remove(pwfile)
	s.Hosts = append([]string{"127.0.0.1"}, otherAddrs()...)
	ca, err := writeCerts(s.Dir, data, s.Hosts)
	if err != nil {
		return err
	}
	s.CAFile = ca
	if err := s.own(filepath.Join(data, "server.crt"), filepath.Join(data, "server.key")); err != nil {
		return err
	}
	hba := "local all all scram-sha-256\n"
	for _, h := range s.Hosts {
		// hostssl for TLS, hostnossl for the tests that a client refuses plaintext itself
		// (and that an explicit sslmode=disable still works).
		hba += fmt.Sprintf("hostssl all all %s/32 scram-sha-256\nhostnossl all all %s/32 scram-sha-256\n", h, h)
	}
	if err := os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		return err
	}
	if err := s.own(filepath.Join(data, "pg_hba.conf")); err != nil {
		return err
	}
	// A port taken between the probe and the bind makes postgres exit: try another.
	var last error
	for range 5 {
		if s.Port, last = freePort(); last != nil {
			return last
		}
		if last = s.serve(data); last == nil {
			return nil
		}
	}
	return last
}

func (s *Server) serve(data string) error {
	listen := strings.Join(s.Hosts, ",")
	conf := fmt.Sprintf(`listen_addresses = '%s'
port = %d
unix_socket_directories = '%s'
ssl = on
ssl_cert_file = 'server.crt'
ssl_key_file = 'server.key'
password_encryption = 'scram-sha-256'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 100
shared_buffers = 64MB
logging_collector = off
log_min_messages = warning
`, listen, s.Port, s.SocketDir)
	if err := os.WriteFile(filepath.Join(data, "postgresql.auto.conf"), []byte(conf), 0o600); err != nil {
		return err
	}
	if err := s.own(filepath.Join(data, "postgresql.auto.conf")); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(s.Dir, "server.log"))
	if err != nil {
		return err
	}
	s.cmd = s.command("postgres", "-D", data)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	done := make(chan struct{})
	s.done = done
	started := make(chan error)
	go func() {
		// The parent-death signal (procattr) follows the thread that spawned: this one
		// stays until postgres exits, so a test binary killed on a timeout takes it along.
		runtime.LockOSThread()
		if err := s.cmd.Start(); err != nil {
			logf.Close()
			started <- err
			return
		}
		started <- nil
		s.cmd.Wait()
		logf.Close()
		close(done)
	}()
	if err := <-started; err != nil {
		return err
	}
	deadline := time.Now().Add(StartWait)
	ok := testkit.Within(StartWait, func() bool {
		select {
		case <-done:
			return true
		default:
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		c, err := pgx.Connect(ctx, s.DSN("postgres"))
		if err != nil {
			return false
		}
		c.Close(ctx)
		return true
	})
	select {
	case <-done:
		log, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
		return fmt.Errorf("postgres exited: %s", log)
	default:
	}
	if !ok {
		return fmt.Errorf("postgres did not accept connections within %v", StartWait)
	}
	return nil
}

// Stop stops the server (a fast shutdown) and removes its directory.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		if s.cmd != nil && s.cmd.Process != nil {
			s.cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-s.done:
			case <-time.After(30 * time.Second):
				s.cmd.Process.Kill()
				<-s.done
			}
		}
		os.RemoveAll(s.Dir)
	})
}

// DSN is the superuser's URL for database db over the unix socket.
func (s *Server) DSN(db string) string {
	return s.SocketURL(Superuser, s.password, db)
}

// SocketURL is the URL of user (with password, "" for none) on database db over the unix
// socket.
func (s *Server) SocketURL(user, password, db string) string {
	u := url.URL{Scheme: "postgres", Path: "/" + db,
		RawQuery: url.Values{"host": {s.SocketDir}, "port": {strconv.Itoa(s.Port)}}.Encode()}
	u.User = userinfo(user, password)
	return u.String()
}

// TCPURL is the URL of user on database db at host (one of Hosts, or "localhost") with the
// given query (sslmode, sslrootcert), password "" for none.
func (s *Server) TCPURL(host, user, password, db string, query url.Values) string {
	u := url.URL{Scheme: "postgres", Host: net.JoinHostPort(host, strconv.Itoa(s.Port)),
		Path: "/" + db, RawQuery: query.Encode()}
	u.User = userinfo(user, password)
	return u.String()
}

func userinfo(user, password string) *url.Userinfo {
	if password == "" {
		return url.User(user)
	}
	return url.UserPassword(user, password)
}

// NewDB creates an empty database of its own for t and returns its name.
func (s *Server) NewDB(t testing.TB) string {
	t.Helper()
	s.mu.Lock()
	s.dbs++
	name := fmt.Sprintf("t%d", s.dbs)
	s.mu.Unlock()
	s.Exec(t, "postgres", "CREATE DATABASE "+name)
	return name
}

// Exec runs sql as the superuser on database db, failing t on an error.
func (s *Server) Exec(t testing.TB, db, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.DSN(db))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Begin opens a connection to url and begins a transaction on it, for a test that holds
// one open while others run; it is rolled back and closed when the test ends.
func Begin(t testing.TB, url string) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(ctx) })
	return tx
}

// CreatePerson makes a login role name with password (its password set again if it
// exists: roles belong to the whole server, and tests in several databases share them).
func (s *Server) CreatePerson(t testing.TB, name, password string) {
	t.Helper()
	if err := s.Person(name, password); err != nil {
		t.Fatal(err)
	}
}

// Person is CreatePerson for a caller that is not a test.
func (s *Server) Person(name, password string) error {
	ident := pgx.Identifier{name}.Sanitize()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	var exists bool
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	verb := "CREATE"
	if exists {
		verb = "ALTER"
	}
	// The password is a literal (CREATE ROLE takes no parameters); it goes over the socket
	// to the server only, and the server logs no statements.
	lit := "'" + strings.ReplaceAll(password, "'", "''") + "'"
	if _, err := c.Exec(ctx, verb+" ROLE "+ident+" LOGIN PASSWORD "+lit); err != nil {
		return fmt.Errorf("%s role %s: %v", verb, name, err)
	}
	return nil
}

// own gives paths to nobody when the tests run as root, so the server may use them.
func (s *Server) own(paths ...string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	for _, p := range paths {
		if err := os.Chown(p, nobody, nobody); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(BinDir, name)
	cmd := &exec.Cmd{
		Path: path,
		Args: append([]string{path}, args...),
		Dir:  s.Dir,
		// Only what the server needs: no PG* of the caller's environment, no secrets.
		Env:   []string{"PATH=" + BinDir + ":/usr/bin:/bin", "LC_ALL=C", "TZ=UTC"},
		Stdin: nil,
	}
	cmd.SysProcAttr = procAttr(os.Geteuid() == 0)
	return cmd
}

func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmd := s.command(name, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return []byte(out.String()), err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// otherAddrs are this machine's unicast addresses that are not loopback nor link-local.
func otherAddrs() []string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.To4() == nil {
			continue
		}
		out = append(out, n.IP.String())
	}
	return out
}

// ErrNoOtherHost says this machine has no address but loopback.
var ErrNoOtherHost = errors.New("pgtest: no address but loopback on this machine")

// OtherHost is an address of this machine that is not loopback, where the server listens.
func (s *Server) OtherHost() (string, error) {
	if len(s.Hosts) < 2 {
		return "", ErrNoOtherHost
	}
	return s.Hosts[1], nil
}
