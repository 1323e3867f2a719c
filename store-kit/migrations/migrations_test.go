package migrations

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_b.sql": {Data: []byte("B")},
		"m/0001_a.sql": {Data: []byte("A")},
		"m/README":     {Data: []byte("not a migration")},
	}
	ms, err := Load(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Version != 1 || ms[0].SQL != "A" || ms[1].Name != "0002_b.sql" {
		t.Fatalf("Load = %+v", ms)
	}
	for name, bad := range map[string]fstest.MapFS{
		"gap":       {"m/0001_a.sql": {}, "m/0003_c.sql": {}},
		"no number": {"m/init.sql": {}},
		"not 1":     {"m/0002_b.sql": {}},
	} {
		if _, err := Load(bad, "m"); err == nil || !strings.Contains(err.Error(), "migration") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestSet(t *testing.T) {
	fsys := fstest.MapFS{"m/0001_a.sql": {Data: []byte("A")}, "m/0002_b.sql": {Data: []byte("B")}}
	set := NewSet(fsys, "m")
	if ms, err := set.Load(); err != nil || len(ms) != 2 || set.Version() != 2 {
		t.Fatalf("Load = %+v, %v; Version %d", ms, err, set.Version())
	}
	if v := NewSet(fstest.MapFS{"m/0002_b.sql": {}}, "m").Version(); v != 0 {
		t.Fatalf("Version of a broken set = %d", v)
	}
}
