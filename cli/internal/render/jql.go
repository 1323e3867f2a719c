package render

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/devworkwire/devworkwire/core/service"
)

// maxSearchLink bounds the search link of a commit summary: past it (many
// scattered keys) no link is shown rather than one a browser or Jira may
// refuse.
const maxSearchLink = 6000

// SearchLink is a link to a Jira issue search (JQL) of exactly the given
// items, on the site of their links ("" when they have none, or the link
// would be too long). Runs of consecutive keys of one project become key
// ranges, so the issues one commit created stay one short term.
func SearchLink(items []service.CommittedItem) string {
	site := ""
	byProject := map[string][]int{}
	var projects []string
	for _, it := range items {
		base, _, ok := strings.Cut(it.URL, "/browse/")
		proj, num, ok2 := strings.Cut(it.Key, "-")
		n, err := strconv.Atoi(num)
		if !ok || !ok2 || err != nil || (site != "" && base != site) {
			return ""
		}
		site = base
		if _, seen := byProject[proj]; !seen {
			projects = append(projects, proj)
		}
		byProject[proj] = append(byProject[proj], n)
	}
	if site == "" {
		return ""
	}
	var terms, single []string
	for _, proj := range projects {
		nums := byProject[proj]
		slices.Sort(nums)
		nums = slices.Compact(nums)
		for i := 0; i < len(nums); {
			j := i
			for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
				j++
			}
			switch {
			case j-i >= 2:
				terms = append(terms, fmt.Sprintf("key >= %s-%d AND key <= %s-%d", proj, nums[i], proj, nums[j]))
			default:
				for k := i; k <= j; k++ {
					single = append(single, fmt.Sprintf("%s-%d", proj, nums[k]))
				}
			}
			i = j + 1
		}
	}
	if len(single) > 0 {
		terms = append(terms, "key in ("+strings.Join(single, ", ")+")")
	}
	jql := strings.Join(terms, " OR ")
	if len(terms) > 1 {
		for i, t := range terms {
			if strings.Contains(t, " AND ") {
				terms[i] = "(" + t + ")"
			}
		}
		jql = strings.Join(terms, " OR ")
	}
	link := site + "/issues/?jql=" + url.QueryEscape(jql+" ORDER BY key")
	if len(link) > maxSearchLink {
		return ""
	}
	return link
}
