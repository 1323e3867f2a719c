package adf

import (
	"fmt"
	"testing"
)

func TestTry(t *testing.T) {
	for _, s := range jiraDocs {
		d, err := Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("-----\n%s", ToMarkdown(d))
	}
	for _, s := range fuzzSeeds {
		d, _ := FromMarkdown(s)
		fmt.Printf("-----\n%s", ToMarkdown(d))
	}
}
