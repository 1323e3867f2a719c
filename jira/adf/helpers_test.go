package adf

import (
	"fmt"
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

// checkStructure enforces ADF rules the JSON schema does not express but
// Jira's ProseMirror schema does: a list item starts with a paragraph or a
// code block, text is never empty, code marks combine only with links.
func checkStructure(d Doc) error {
	var walk func(n Node, path string) error
	walk = func(n Node, path string) error {
		switch n.Type {
		case "listItem":
			if len(n.Content) == 0 || (n.Content[0].Type != "paragraph" && n.Content[0].Type != "codeBlock") {
				return fmt.Errorf("%s: listItem must start with a paragraph or codeBlock", path)
			}
		case "text":
			if n.Text == "" {
				return fmt.Errorf("%s: empty text node", path)
			}
			code := false
			for _, m := range n.Marks {
				code = code || m.Type == "code"
			}
			for _, m := range n.Marks {
				if code && m.Type != "code" && m.Type != "link" {
					return fmt.Errorf("%s: code mark combined with %s", path, m.Type)
				}
			}
		}
		for i, c := range n.Content {
			if err := walk(c, fmt.Sprintf("%s/%s[%d]", path, c.Type, i)); err != nil {
				return err
			}
		}
		return nil
	}
	for i, c := range d.Content {
		if err := walk(c, fmt.Sprintf("doc/%s[%d]", c.Type, i)); err != nil {
			return err
		}
	}
	return nil
}
