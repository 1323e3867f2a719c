package render

import "github.com/devworkwire/devworkwire/cli/internal/iostreams"

func colourOn() *iostreams.ColorScheme {
	s, _, _, _ := iostreams.Test()
	s.SetTTY(true, true, true)
	s.SetColor(true)
	return s.ColorScheme(false)
}

func stripANSI(s string) string { return iostreams.StripANSI(s) }
