package prompt

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

func TestConfirmDefaultsToNo(t *testing.T) {
	tests := []struct {
		in   string
		want Answer
	}{
		{"\n", No},
		{"", No},
		{"n\n", No},
		{"no\n", No},
		{"yess\n", No},
		{"sure\n", No},
		{" y \n", Yes},
		{"Y\n", Yes},
		{"yes\n", Yes},
		{"YES\n", Yes},
		{"y", Yes},
		{"\x03\n", Interrupted},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if got := Confirm(context.Background(), strings.NewReader(tt.in), &out, "Commit?"); got != tt.want {
			t.Errorf("answer to %q = %v, want %v", tt.in, got, tt.want)
		}
		if !strings.HasPrefix(out.String(), "Commit? [y/N] ") {
			t.Errorf("prompt = %q", out.String())
		}
	}
}

func TestConfirmInterruptedByContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	if got := Confirm(ctx, pr, &out, "Commit?"); got != Interrupted {
		t.Fatalf("got %v, want Interrupted", got)
	}
}
