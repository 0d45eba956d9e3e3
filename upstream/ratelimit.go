package main

import (
	"sync"
	"time"
)

// Bucket limits a rate with a token bucket, kept as a virtual schedule (the generic cell rate
// algorithm): each admitted request takes the next free slot, so waiting requests are served
// at exactly the configured rate however many are queued, and a burst of up to `burst`
// requests passes at once after an idle period.
type Bucket struct {
	mu       sync.Mutex
	interval time.Duration // one token every interval
	burst    time.Duration // (burst - 1) * interval: how far ahead of the schedule a request may be
	maxWait  time.Duration // a request that would wait longer is refused
	tat      time.Time     // theoretical arrival time of the next request
}

// NewBucket admits `rate` requests per second with a burst of `burst` (at least 1), and
// refuses a request that would have to wait more than maxWait for its token.
func NewBucket(rate float64, burst int, maxWait time.Duration) *Bucket {
	if burst < 1 {
		burst = 1
	}
	interval := time.Duration(float64(time.Second) / rate)
	if interval <= 0 {
		interval = 1
	}
	return &Bucket{interval: interval, burst: time.Duration(burst-1) * interval, maxWait: maxWait}
}

// DefaultBurst is the burst used for a rate: 50 ms worth of requests, at least 1. The burst
// gives back the slots lost while the server was not running (a shared core), which keeps the
// served rate within a few % of the limit up to 20000 req/s; over a run of seconds it adds
// at most 50 ms worth of requests.
func DefaultBurst(rate float64) int {
	if b := int(rate / 20); b > 1 {
		return b
	}
	return 1
}

// Reserve takes a token for a request arriving at `now`. It returns how long the request must
// wait before being served, or ok=false (and takes nothing) when that wait exceeds maxWait.
func (b *Bucket) Reserve(now time.Time) (wait time.Duration, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tat := b.tat
	if tat.Before(now) {
		tat = now
	}
	wait = tat.Sub(now) - b.burst
	if wait < 0 {
		wait = 0
	}
	if wait > b.maxWait {
		return 0, false
	}
	b.tat = tat.Add(b.interval)
	return wait, true
}
