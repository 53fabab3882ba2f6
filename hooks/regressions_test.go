package hooks_test

import (
	"testing"

	"github.com/claude-mem/claude-mem-go/hooks"
)

// Issue 2 lists "hook_event_name unknown" among the bad inputs that each get "a WARN log
// line naming the problem".
func TestUnknownEventNameIsLoggedAtWarn(t *testing.T) {
	h := newHarness(t)
	h.run([]byte(`{"hook_event_name":"SomethingNew","session_id":"s1","cwd":"/p"}`))
	if !h.hasLog("warn", "SomethingNew") {
		t.Errorf("no WARN line naming the unknown event:\n%s", h.log.String())
	}
}

// A prompt made of two task-notification blocks with the user's own words between them is
// not "only a <task-notification> block": the user's words are stored.
func TestUserWordsBetweenTwoTaskNotificationsAreStored(t *testing.T) {
	h := newHarness(t)
	h.run(h.event(hooks.UserPromptSubmit, map[string]any{
		"prompt": "<task-notification>a</task-notification>\nUSER-WORDS please fix it\n<task-notification>b</task-notification>",
	}))
	if n := h.count("prompts", "text LIKE '%USER-WORDS%'"); n != 1 {
		t.Errorf("prompt with the user's words stored %d times, want 1", n)
	}
}

// A nested <private> span does not leak its tail: the text after an inner </private> is
// still inside the outer span.
func TestNestedPrivateSpanDoesNotLeak(t *testing.T) {
	got := hooks.StripPrivate("keep <private>a <private>b</private> LEAKED</private> end")
	if got != "keep  end" {
		t.Errorf("StripPrivate = %q, want %q", got, "keep  end")
	}
}
