package testkit

import (
	"sync"
	"time"
)

// Clock is a fake clock with timers for the packages that take Now and After as values:
// time moves only when the test calls Advance, so a wait that a timer ends takes no real
// time and no test sleeps to let one fire.
type Clock struct {
	mu      sync.Mutex
	changed *sync.Cond // signalled when a timer is added
	now     time.Time
	timers  []timer
}

type timer struct {
	at time.Time
	c  chan time.Time
}

// NewClock is a fake clock reading now.
func NewClock(now time.Time) *Clock {
	c := &Clock{now: now}
	c.changed = sync.NewCond(&c.mu)
	return c
}

// Now is the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After is time.After on the fake time: the channel receives once Advance reaches d from
// now (at once for d <= 0).
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, timer{at: c.now.Add(d), c: ch})
	c.changed.Broadcast()
	return ch
}

// Advance moves the time by d and fires every timer due by then.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.c <- c.now
	}
	c.timers = kept
}

// WaitTimers blocks until at least n timers wait to fire: the code under test reached
// its wait, and an Advance now ends it.
func (c *Clock) WaitTimers(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.timers) < n {
		c.changed.Wait()
	}
}
