package auth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

const sampleKey = "sk-ant-api03-Zq9xW2vB7nM4kL1pR8tY6uI3oP5aS0dF2gH4jK6lZ8xC1vB3nM5qW7eR9tY1uI3oP5aS7dF9gH1jK3lZ5xC7vB9nM1qW3eR5tY7uI9oP1aS3d"

func TestSecretRedacts(t *testing.T) {
	s := Secret(sampleKey)
	n := len([]rune(sampleKey))
	src := Source{Kind: KindAPIKey, From: "environment", EnvVar: varAPIKey, Value: s}
	tests := []struct {
		name string
		out  func() string
	}{
		{"String", s.String},
		{"GoString", s.GoString},
		{"%v", func() string { return fmt.Sprintf("%v", s) }},
		{"%s", func() string { return fmt.Sprintf("%s", s) }},
		{"%q", func() string { return fmt.Sprintf("%q", s) }},
		{"%x", func() string { return fmt.Sprintf("%x", s) }},
		{"%#v", func() string { return fmt.Sprintf("%#v", s) }},
		{"%20s", func() string { return fmt.Sprintf("%20s", s) }},
		{"Sprint", func() string { return fmt.Sprint(s) }},
		{"Source %v", func() string { return fmt.Sprintf("%v", src) }},
		{"Source %+v", func() string { return fmt.Sprintf("%+v", src) }},
		{"Source %#v", func() string { return fmt.Sprintf("%#v", src) }},
		{"&Source %+v", func() string { return fmt.Sprintf("%+v", &src) }},
		{"JSON", func() string { b, _ := json.Marshal(s); return string(b) }},
		{"Source JSON", func() string { b, _ := json.Marshal(src); return string(b) }},
		{"map key %v", func() string { return fmt.Sprintf("%v", map[Secret]int{s: 1}) }},
		{"slice JSON", func() string { b, _ := json.Marshal([]Secret{s}); return string(b) }},
		{"MarshalText", func() string { b, _ := s.MarshalText(); return string(b) }},
		{"zerolog Stringer", func() string { return zlog(func(e *zerolog.Event) { e.Stringer("k", s) }) }},
		{"zerolog Interface", func() string { return zlog(func(e *zerolog.Event) { e.Interface("k", s) }) }},
		{"zerolog Any", func() string { return zlog(func(e *zerolog.Event) { e.Any("k", s) }) }},
		{"zerolog Str of String()", func() string { return zlog(func(e *zerolog.Event) { e.Str("k", s.String()) }) }},
		{"zerolog Any Source", func() string { return zlog(func(e *zerolog.Event) { e.Any("src", src) }) }},
		{"zerolog Fields", func() string { return zlog(func(e *zerolog.Event) { e.Fields(map[string]any{"k": s}) }) }},
		{"zerolog Msgf", func() string {
			var buf bytes.Buffer
			l := zerolog.New(&buf)
			l.Info().Msgf("key %s", s)
			return buf.String()
		}},
		{"zerolog console", func() string {
			var buf bytes.Buffer
			l := zerolog.New(zerolog.ConsoleWriter{Out: &buf, NoColor: true})
			l.Info().Any("k", s).Stringer("j", s).Msg("m")
			return buf.String()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := tt.out()
			if strings.Contains(out, sampleKey) || strings.Contains(out, sampleKey[8:40]) {
				t.Fatalf("secret leaked: %s", out)
			}
			if want := fmt.Sprintf("sk-a…(%d)", n); !strings.Contains(out, want) {
				t.Fatalf("output %q lacks the redacted form %q", out, want)
			}
		})
	}
	if s.Reveal() != sampleKey {
		t.Fatal("Reveal does not return the value")
	}
}

func zlog(add func(*zerolog.Event)) string {
	var buf bytes.Buffer
	l := zerolog.New(&buf)
	e := l.Info()
	add(e)
	e.Msg("m")
	return buf.String()
}
