package storage

import (
	"fmt"
	"testing"
)

// benchValue is about the size of a stored APIService.
var benchValue = make([]byte, 1024)

func BenchmarkCreate(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s := be.open(b, defaultWatchConfig())
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := s.Create(ctx, fmt.Sprintf("/bench/%09d", i), benchValue); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkGet(b *testing.B) {
	const keys = 1000
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s := be.open(b, defaultWatchConfig())
			for i := 0; i < keys; i++ {
				if _, err := s.Create(ctx, fmt.Sprintf("/bench/%09d", i), benchValue); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := s.Get(ctx, fmt.Sprintf("/bench/%09d", i%keys)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
