package main

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestBucketBurstThenSchedule(t *testing.T) {
	b := NewBucket(100, 3, time.Second) // one token per 10 ms, burst 3
	var waits []time.Duration
	for i := 0; i < 6; i++ {
		wait, ok := b.Reserve(t0) // six requests at the same instant
		if !ok {
			t.Fatalf("request %d refused", i)
		}
		waits = append(waits, wait)
	}
	ms := time.Millisecond
	want := []time.Duration{0, 0, 0, 10 * ms, 20 * ms, 30 * ms}
	for i := range want {
		if waits[i] != want[i] {
			t.Errorf("waits %v, want %v", waits, want)
			break
		}
	}
}

func TestBucketRefillsAfterIdle(t *testing.T) {
	b := NewBucket(100, 2, time.Second)
	for i := 0; i < 4; i++ {
		b.Reserve(t0)
	}
	// After a long idle period the burst is available again, and no more than the burst.
	later := t0.Add(10 * time.Second)
	for i, want := range []time.Duration{0, 0, 10 * time.Millisecond} {
		if wait, _ := b.Reserve(later); wait != want {
			t.Errorf("request %d after idle waits %s, want %s", i, wait, want)
		}
	}
}

func TestBucketRefusesBeyondQueueTimeout(t *testing.T) {
	b := NewBucket(10, 1, 250*time.Millisecond) // 100 ms per token
	var served, refused int
	for i := 0; i < 10; i++ {
		if _, ok := b.Reserve(t0); ok {
			served++
		} else {
			refused++
		}
	}
	// Waits 0, 100, 200 ms fit in 250 ms; the 4th would wait 300 ms.
	if served != 3 || refused != 7 {
		t.Errorf("served %d, refused %d; want 3 and 7", served, refused)
	}
	// A refused request took nothing: 300 ms later the next slot is free at once.
	if wait, ok := b.Reserve(t0.Add(300 * time.Millisecond)); !ok || wait != 0 {
		t.Errorf("after the queue drained: wait %s, ok %v", wait, ok)
	}
}

// Clients asking twice the limit for 10 s of fake time get the limit, within the burst.
func TestBucketRateAccuracy(t *testing.T) {
	for _, rate := range []float64{100, 500, 1000, 5000, 20000} {
		b := NewBucket(rate, DefaultBurst(rate), time.Second)
		const seconds = 10
		offered := int(2 * rate * seconds)
		gap := time.Duration(float64(time.Second) / (2 * rate))
		end := t0.Add(seconds * time.Second)
		servedBy := 0 // requests whose service time falls within the 10 s
		for i := 0; i < offered; i++ {
			now := t0.Add(time.Duration(i) * gap)
			if wait, ok := b.Reserve(now); ok && !now.Add(wait).After(end) {
				servedBy++
			}
		}
		got := float64(servedBy) / seconds
		if got < rate*0.99 || got > rate*1.01+float64(DefaultBurst(rate))/seconds {
			t.Errorf("rate %v: served %.1f/s", rate, got)
		}
	}
}

func TestDefaultBurst(t *testing.T) {
	for rate, want := range map[float64]int{0.5: 1, 20: 1, 100: 5, 500: 25, 20000: 1000} {
		if got := DefaultBurst(rate); got != want {
			t.Errorf("DefaultBurst(%v) = %d, want %d", rate, got, want)
		}
	}
}
