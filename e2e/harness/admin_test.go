package harness

import "testing"

func TestIsWrite(t *testing.T) {
	for _, c := range []struct {
		method, path string
		write        bool
	}{
		{"GET", "/rest/api/3/issue/DEMO-1", false},
		{"POST", "/rest/api/3/search/jql", false},
		{"POST", "/rest/api/3/issue/bulkfetch", false},
		{"POST", "/rest/api/3/issue/bulk", true},
		{"POST", "/rest/api/3/issue", true},
		{"PUT", "/rest/api/3/issue/DEMO-1", true},
		{"POST", "/rest/api/3/issue/DEMO-1/transitions", true},
		{"POST", "/rest/api/3/issue/DEMO-1/comment", true},
		{"POST", "/_mockjira/faults", false},
	} {
		if got := (Request{Method: c.method, Path: c.path}).IsWrite(); got != c.write {
			t.Errorf("%s %s: IsWrite = %v, want %v", c.method, c.path, got, c.write)
		}
	}
}
