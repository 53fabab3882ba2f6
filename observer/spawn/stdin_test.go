package spawn

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestStdinMessage(t *testing.T) {
	prompt := "line one\nline \"two\" with <tags> & $(touch x) `id` | > out\x00 é"
	b := StdinMessage(prompt)
	if strings.Count(string(b), "\n") != 1 || b[len(b)-1] != '\n' {
		t.Fatalf("not one line: %q", b)
	}
	var m struct {
		Type    string `json:"type"`
		Message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "user" || m.Message.Role != "user" || m.Message.Content != prompt {
		t.Errorf("round trip: %+v", m)
	}
	if want := `{"type":"user","message":{"role":"user","content":"a"}}` + "\n"; string(StdinMessage("a")) != want {
		t.Errorf("got %s", fmt.Sprintf("%q", StdinMessage("a")))
	}
}
