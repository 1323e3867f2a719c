package pgstore_test

import (
	"net/url"
	"strings"
	"testing"
)

func containsStr(s, sub string) bool { return strings.Contains(s, sub) }

func isTCP(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Host != "" && u.Query().Get("host") == ""
}

func withPassword(t *testing.T, raw, pw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), pw)
	return u.String()
}

func withDatabase(t *testing.T, raw, db string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	return u.String()
}
