package settings

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// syncURL accepts a PostgreSQL connection URL (postgres:// or postgresql://, as libpq reads
// one). libpq's keyword=value form is refused with the URL to write instead: the sync
// client applies its TLS rule to a URL's host and sslmode, one form to reason about. What
// the URL means (host, TLS) is the client's to decide; here only a value no client could
// read is refused, and no error shows the value's password.
func syncURL(v string, dst *string) error {
	if v == "" {
		*dst = ""
		return nil
	}
	if !strings.Contains(v, "://") {
		if strings.Contains(v, "=") {
			return errors.New("keyword=value pairs are not read: write a URL such as postgres://USER@HOST:5432/DB?sslmode=verify-full")
		}
		return errors.New("not a postgres:// URL")
	}
	u, err := url.Parse(v)
	if err != nil {
		return errors.New("not a URL: " + ShownURL(v))
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return errors.New("not a postgres:// URL")
	}
	*dst = v
	return nil
}

// passwordPair is a password given as a keyword or a query parameter. Compiled at first
// use, as every pattern of the binary: every hook starts it.
var passwordPair = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)((?:^|[\s&?])(?:ssl)?password=)('(?:[^'\\]|\\.)*'|[^\s&]*)`)
})

// ShownURL is a connection string as it may be shown (doctor, errors, health, sync
// status): every password removed, the rest kept so the person sees which server.
func ShownURL(v string) string {
	if i := strings.Index(v, "://"); i >= 0 {
		if u, err := url.Parse(v); err == nil {
			if u.User != nil {
				if _, has := u.User.Password(); has {
					u.User = url.User(u.User.Username())
				}
			}
			v = u.String()
		} else if at := strings.LastIndex(v, "@"); at > i {
			// Unparsable: whatever stands before the host may be a password.
			v = v[:i+3] + "xxxxx" + v[at:]
		}
	}
	return passwordPair().ReplaceAllString(v, "${1}xxxxx")
}
