package adf

import (
	"encoding/json"
	"strings"
	"testing"
)

// storyDescription is a typical story description of about 2 KB.
const storyDescription = `As a **release manager** I want the nightly build to publish its artefacts to
the internal registry, so that QA can install a build without asking a developer.

## Context

The pipeline currently stops after ` + "`make dist`" + `; the tarballs are attached to the CI run
and expire after 7 days. See [the pipeline docs](https://wiki.example.com/ci/pipeline) and
the discussion in DEMO-42.

## Acceptance criteria

1. A successful nightly run uploads ` + "`dist/*.tar.gz`" + ` to ` + "`registry.example.com/nightly`" + `.
2. Each upload is tagged with the commit SHA *and* the date (e.g. ` + "`2024-06-13-abc1234`" + `).
3. A failed upload fails the pipeline with a clear message; it is **never** silently skipped.
4. Artefacts older than 30 days are pruned.

## Tasks

- [x] Create a service account for the registry
- [ ] Add the upload step to ` + "`.ci/nightly.yml`" + `
- [ ] Add the pruning job
  - [ ] Dry-run mode first
- [ ] Document the new step

## Notes

| Environment | Registry path | Retention |
|-------------|---------------|-----------|
| nightly     | /nightly      | 30 days   |
| release     | /releases     | forever   |

> Uploads must use the service account token from the vault, never a personal token.

Example of the step:

` + "```yaml" + `
upload:
  stage: publish
  script:
    - ./scripts/upload.sh dist/*.tar.gz
  only:
    - schedules
` + "```" + `

---

## Risks

- The registry enforces a **5 GB** quota per namespace; the nightly tarballs are
  about 400 MB each, so pruning must run before the quota is reached.
- The upload script retries on HTTP 429/503 but *not* on 401: an expired token
  must fail fast and page the on-call engineer.
- Network egress from the CI runners goes through the proxy at
  ` + "`proxy.internal:3128`" + `; large uploads have timed out there before.

## Definition of done

- Code reviewed and merged to ` + "`main`" + `
- The first three nightly runs after the merge published their artefacts
- The runbook at <https://wiki.example.com/runbooks/nightly> is updated

Out of scope: ~~signing the artefacts~~ (tracked separately).
`

func BenchmarkFromMarkdown(b *testing.B) {
	b.SetBytes(int64(len(storyDescription)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromMarkdown(storyDescription); err != nil {
			b.Fatal(err)
		}
	}
}

// storyDoc is storyDescription converted.
func storyDoc(b *testing.B) Doc {
	d, err := FromMarkdown(storyDescription)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func BenchmarkToMarkdown(b *testing.B) {
	d := storyDoc(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = ToMarkdown(d)
	}
}

// BenchmarkMarshal encodes the typical description as the adapter sends it.
func BenchmarkMarshal(b *testing.B) {
	d := storyDoc(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse decodes it as the adapter reads it back from Jira.
func BenchmarkParse(b *testing.B) {
	raw, err := json.Marshal(storyDoc(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func TestStoryDescription(t *testing.T) {
	if n := len(storyDescription); n < 1800 || n > 2300 {
		t.Fatalf("benchmark input is %d bytes, want about 2 KB", n)
	}
	d := checkMarkdown(t, "story", storyDescription)
	checkNoTextLoss(t, "story", storyDescription, d)
	var types []string
	for _, n := range d.Content {
		types = append(types, n.Type)
	}
	want := "paragraph heading paragraph heading orderedList heading taskList heading table blockquote paragraph codeBlock rule heading bulletList heading bulletList paragraph"
	if got := joinStrings(types); got != want {
		t.Errorf("blocks = %s\nwant     %s", got, want)
	}
	// Reading it back gives the author's Markdown: every line except the
	// table's (whose padding is normalised) comes back verbatim, in order.
	back := strings.Split(ToMarkdown(d), "\n")
	j := 0
	for _, line := range strings.Split(storyDescription, "\n") {
		if strings.HasPrefix(line, "|") {
			continue
		}
		for j < len(back) && back[j] != line {
			j++
		}
		if j == len(back) {
			t.Errorf("ToMarkdown lost or changed the line %q:\n%s", line, ToMarkdown(d))
			return
		}
		j++
	}
}

func joinStrings(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// hostileDescriptions are 32,000-character descriptions built to be slow
// to convert (the plan parser's limits let each of them through): deep
// lists, runs of emphasis openers, a wide table, nested quotes.
func hostileDescriptions() map[string]string {
	const n = 32000
	var nest strings.Builder
	for i := range 40 {
		nest.WriteString(strings.Repeat("  ", i) + "- a\n")
	}
	return map[string]string{
		"nested-lists": strings.Repeat(nest.String(), n/nest.Len()+1)[:n],
		"emphasis":     strings.Repeat("*a", n/2),
		"table":        strings.Repeat("|a", 40) + "|\n" + strings.Repeat("|-", 40) + "|\n" + strings.Repeat(strings.Repeat("|a", 40)+"|\n", n/82),
		"quotes":       strings.Repeat(strings.Repeat(">", 100)+" a\n", n/103),
		"text-runs":    strings.Repeat("[a]", n/3), // a text node per bracket, merged into one
	}
}

// BenchmarkFromMarkdownHostile converts each hostile description and
// encodes it, as the preview's size check does (150 of them fill a
// document to its limit: multiply by 150 for a whole preview's share).
func BenchmarkFromMarkdownHostile(b *testing.B) {
	for name, md := range hostileDescriptions() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(md)))
			for b.Loop() {
				d, err := FromMarkdown(md)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := d.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
