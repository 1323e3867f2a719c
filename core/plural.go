package core

import "strconv"

// Plural is n with the word for one or for many: "1 write", "2 writes",
// never "2 write(s)". Every count in a text people read is written with
// it.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
