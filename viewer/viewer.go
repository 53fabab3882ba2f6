// Package viewer is `claude-mem viewer`: a local web UI over the memory, served from the same
// binary (net/http, html/template, embedded assets), bound to loopback, answering only to
// a per-launch host name under .localhost and locked to the person who started it by a
// per-launch token.
package viewer

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/doctor"
	"github.com/claude-mem/claude-mem-go/memory"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config is what a viewer serves: paths, clock and the parts of other packages it shows,
// as values.
type Config struct {
	// Memory is what the pages show, read through one long-lived reader (pending capture
	// journals stored before each page's read); forget writes through it.
	Memory    memory.Memory
	Report    func(context.Context) *doctor.Report // the doctor report (§13) for health and settings
	Loc       *time.Location                       // dates are shown in this zone; nil is UTC
	BudgetUSD float64                              // CLAUDE_MEM_DAILY_BUDGET_USD, shown on the cost page
	Now       func() time.Time
	Host      string        // the per-launch name under .localhost (NewHost): the only one Host and Origin may name
	Port      int           // the port the listener holds, with Host
	Token     string        // the per-launch secret of the printed URL
	Poll      time.Duration // how often the live feed looks for new observations

	// CLAUDE_MEM_CONTEXT_OBSERVATIONS: the context page reads what SessionStart reads.
	ContextObservations int

	// Command is how the user runs claude-mem (doctor.Command), for the commands pages name;
	// "" is claude-mem. The refusal page never shows it: anyone on the machine may ask.
	Command string
}

// ErrNoToken: the random source failed, so no secret token could be made.
var ErrNoToken = errors.New("viewer: no random token")

// ErrNoHost: a Config without its per-launch host name, port or token, which would serve
// an address whose cookie other servers receive.
var ErrNoHost = errors.New("viewer: no per-launch host name, port and token")

// NewToken returns a fresh random secret: 32 hex characters.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", errors.Join(ErrNoToken, err)
	}
	return hex.EncodeToString(b), nil
}

// NewHost returns a fresh per-launch host name, claude-mem-<16 random base32
// characters>.localhost. Browsers resolve every name under .localhost to loopback
// themselves (RFC 6761) and keep a cookie to the name that set it, for every port:
// a cookie set under 127.0.0.1 or localhost would go to every other server there, one
// set under this name goes only where the name is typed, which nobody else knows. Each
// launch is its own site too (.localhost is a public suffix), so its SameSite=Strict
// cookie stays home on a navigation from any other local page.
func NewHost() (string, error) {
	b := make([]byte, 10)
	if _, err := rand.Read(b); err != nil {
		return "", errors.Join(ErrNoToken, err)
	}
	return "claude-mem-" + strings.ToLower(base32.StdEncoding.EncodeToString(b)) + ".localhost", nil
}

// URL is the address to open: it carries the token once, the cookie after.
func URL(host string, port int, token string) string {
	return "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/?token=" + url.QueryEscape(token)
}

// cookieName is the viewer's one cookie. No port in it: its per-launch host keeps it
// apart from any other viewer's.
const cookieName = "claude_mem_viewer"

// session is the cookie's value for origin (host:port): an HMAC keyed by the token, so
// the browser never holds the token itself, the value names one launch at one address,
// and nothing learnt from it gives back the token.
func session(token, origin string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("claude-mem viewer session\x00" + origin))
	return hex.EncodeToString(m.Sum(nil))
}

// Loopback is what the viewer listens on: one port on 127.0.0.1 and on ::1.
type Loopback []net.Listener

// Close closes every listener.
func (l Loopback) Close() error {
	var errs []error
	for _, ln := range l {
		errs = append(errs, ln.Close())
	}
	return errors.Join(errs...)
}

// ErrPortTaken: the port is free on 127.0.0.1 but another program holds it on ::1.
var ErrPortTaken = errors.New("viewer: the port is held on ::1 by another program")

// Listen takes port (0: a free one) on 127.0.0.1 and on ::1, never another interface,
// and returns the listeners with the port they hold. Both: a browser tries ::1 first
// for a .localhost name, so a port left free there is one another local user could take
// to receive the tokened address. A machine without ::1 has nothing to take.
func Listen(port int) (Loopback, int, error) {
	for range 8 { // with port 0, the system picks on 127.0.0.1 a port that may be taken on ::1
		v4, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return nil, 0, err
		}
		bound := v4.Addr().(*net.TCPAddr).Port
		v6, err := net.Listen("tcp6", net.JoinHostPort("::1", strconv.Itoa(bound)))
		if err == nil {
			return Loopback{v4, v6}, bound, nil
		}
		probe, perr := net.Listen("tcp6", "[::1]:0")
		if perr != nil {
			return Loopback{v4}, bound, nil // no ::1 here
		}
		probe.Close()
		v4.Close()
		if port != 0 {
			return nil, 0, fmt.Errorf("%w: [::1]:%d: %v", ErrPortTaken, port, err)
		}
	}
	return nil, 0, ErrPortTaken
}

// Serve answers on lns until ctx ends, then lets requests under way finish for up to 2 s
// (the live feed's streams end with ctx) and closes what is left: a browser's idle
// preconnected socket would otherwise hold Shutdown for 5 s. Every request only reads,
// or writes in one transaction, so nothing is lost by closing.
func Serve(ctx context.Context, lns Loopback, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, len(lns))
	for _, ln := range lns {
		go func() { done <- srv.Serve(ln) }()
	}
	errs := make([]error, 0, len(lns))
	select {
	case err := <-done: // a listener failed: stop the others too
		errs = append(errs, err)
		srv.Close()
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
	}
	for len(errs) < len(lns) {
		errs = append(errs, <-done)
	}
	for _, err := range errs {
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	return nil
}

// csp allows only this origin's own stylesheet and script, and images inlined as data:.
const csp = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// guard refuses every request that is not from the person who started the viewer, before
// any page runs: another Host than the per-launch name (DNS rebinding, and 127.0.0.1 or
// localhost, whose cookies every local server receives), no session cookie, a
// cross-origin POST, a POST without the form token.
func (s *server) guard(next http.Handler) http.Handler {
	origin := net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
	want := session(s.cfg.Token, origin)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if r.Host != origin {
			// The name is not told here: anyone on the machine can ask this port.
			s.refuse(w, r, "This address is not the viewer's: open the address `claude-mem viewer` printed (http://claude-mem-….localhost:PORT/?token=…).")
			return
		}
		if t := r.URL.Query().Get("token"); t != "" && r.Method == http.MethodGet && s.equal(t, s.cfg.Token) {
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: want, Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q := r.URL.Query()
			q.Del("token")
			// Cleaned, so "//host" cannot become a redirect to another site.
			u := url.URL{Path: path.Clean("/" + r.URL.Path), RawQuery: q.Encode()}
			// A page that navigates on, not a 303: a browser opened on the launcher file
			// arrives from another site (file://), and a redirect in that navigation would
			// not carry the SameSite=Strict cookie just set; a navigation from this page,
			// same-site, does.
			h.Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=%s"><title>claude-mem</title><a href="%s">Continue</a>`+"\n",
				html.EscapeString(u.String()), html.EscapeString(u.String()))
			return
		}
		if !s.hasSession(r, want) {
			s.refuse(w, r, "Open the viewer with the address `claude-mem viewer` printed: it carries this launch's token.")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if !sameOrigin(r, origin) {
				s.refuse(w, r, "A form from another site may not change your memory.")
				return
			}
			if r.Method != http.MethodPost || !s.equal(r.PostFormValue("csrf"), s.csrf) {
				s.refuse(w, r, "This form is out of date: open the page again.")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hasSession reports whether any cookie of the viewer's name holds want: one planted
// under the same name (cookies name no port) must not hide the real one.
func (s *server) hasSession(r *http.Request, want string) bool {
	ok := false
	for _, c := range r.CookiesNamed(cookieName) {
		ok = s.equal(c.Value, want) || ok
	}
	return ok
}

// sameOrigin reports whether a POST comes from one of the viewer's own pages: its Origin
// names the viewer, or, when there is no Origin, its Referer does. Under the viewer's
// Referrer-Policy: no-referrer a browser sends "Origin: null" and no Referer even for the
// viewer's own forms; then only the browser's own Sec-Fetch-Site: same-origin (which no
// page can set) vouches for it.
func sameOrigin(r *http.Request, origin string) bool {
	is := func(o string) bool {
		u, err := url.Parse(o)
		return err == nil && u.Scheme == "http" && u.Host == origin && (u.Path == "" || u.Path == "/")
	}
	switch o := r.Header.Get("Origin"); {
	case o != "" && o != "null":
		return is(o)
	case r.Referer() != "":
		u, err := url.Parse(r.Referer())
		return err == nil && is(u.Scheme+"://"+u.Host)
	default:
		return r.Header.Get("Sec-Fetch-Site") == "same-origin"
	}
}

func (s *server) equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
