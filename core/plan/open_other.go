//go:build !unix

package plan

// openFlags are added to O_RDONLY when ReadFile opens a document. Outside
// Unix, opening a file named like a document does not block on a pipe, so
// no flag is needed; the opened file is still checked to be regular.
const openFlags = 0
