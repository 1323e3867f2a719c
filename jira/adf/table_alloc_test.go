package adf

import (
	"strings"
	"testing"
)

// TestWideTableRowsAreMadeAtOnce: a row's cells and their paragraphs are
// allocated once a row, not one cell at a time (a 40-column row made 47
// lists of nodes); what is left per cell is goldmark's parse and the
// cell's text.
func TestWideTableRowsAreMadeAtOnce(t *testing.T) {
	const rows, cols = 100, 40
	md := strings.Repeat("|a", cols) + "|\n" + strings.Repeat("|-", cols) + "|\n" + strings.Repeat(strings.Repeat("|a", cols)+"|\n", rows)
	d, err := FromMarkdown(md)
	if err != nil || len(d.Content) != 1 || len(d.Content[0].Content) != rows+1 || len(d.Content[0].Content[1].Content) != cols {
		t.Fatalf("FromMarkdown = %d blocks, %v; want one table of %d rows of %d cells", len(d.Content), err, rows+1, cols)
	}
	per := testing.AllocsPerRun(3, func() { _, _ = FromMarkdown(md) }) / float64((rows+1)*cols)
	if per > 5.5 {
		t.Errorf("converting a table took %.2f allocations a cell; want at most 5.5 (6.2 when each cell was made alone)", per)
	}
}
