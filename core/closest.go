package core

import "strings"

// Closest is the word of known closest to word (in lower case) when one is
// close enough to be what was meant — a prefix of the other, or at most 3
// edits apart — else "": how an unknown key is answered with "did you
// mean …?" (a document's keys, the configuration's keys).
func Closest(word string, known []string) string {
	k := strings.ToLower(word)
	if len(k) < 2 {
		return ""
	}
	best, bestD := "", 4
	for _, c := range known {
		d := editDistance(k, c)
		if strings.HasPrefix(c, k) || strings.HasPrefix(k, c) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
