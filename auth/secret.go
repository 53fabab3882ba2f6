// Package auth decides which credential the observer uses, in the documented order of
// DESIGN.md §9, and keeps every secret redacted wherever it could be printed or logged.
package auth

import (
	"encoding/json"
	"fmt"

	"github.com/claude-mem/claude-mem-go/redact"
)

// Secret is a credential value. Every way of printing it shows only a short prefix and
// the length (`sk-ant-…` → `sk-a…(108)`); Reveal is the one way to get the value, and only
// the observer's spawn calls it. (encoding/json writes a string-kinded map key as it is,
// so a Secret is never a map key.)
type Secret string

// String redacts.
func (s Secret) String() string { return redact.Short(string(s)) }

// GoString redacts %#v too.
func (s Secret) GoString() string { return s.String() }

// Format makes every fmt verb redact, %q and %x included; %q quotes the redacted form.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", s.String())
		return
	}
	fmt.Fprint(f, s.String())
}

// MarshalJSON redacts.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalText redacts (used by encoders that prefer text).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Reveal returns the real value, for the observer's environment only.
func (s Secret) Reveal() string { return string(s) }
