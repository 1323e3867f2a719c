package jira_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// A Provider against a fake Jira: create an epic and a story under it,
// then find the story by its reference.
func Example() {
	fake := jiratest.New(jiratest.Options{})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	defer fake.Close()

	p, err := jira.New(jira.Config{BaseURL: srv.URL, Email: fake.Email(), Token: fake.Token(), Project: "DEMO"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	epic := core.ItemSpec{Reference: "checkout/e-1", Kind: core.KindEpic, Title: "Guest checkout"}
	epic.Digest = core.ContentDigest(epic.Kind, epic.Title, "", nil, "")
	out, err := p.Create(ctx, []core.ItemSpec{epic})
	if err != nil {
		fmt.Println(err)
		return
	}
	story := core.ItemSpec{Reference: "checkout/s-1", Kind: core.KindStory, Title: "Pay without an account",
		AcceptanceCriteria: []string{"A guest can pay with a card"}, ParentKey: out[0].Key}
	story.Digest = core.ContentDigest(story.Kind, story.Title, "", story.AcceptanceCriteria, epic.Reference)
	if _, err := p.Create(ctx, []core.ItemSpec{story}); err != nil {
		fmt.Println(err)
		return
	}
	found, err := p.Lookup(ctx, []core.Reference{story.Reference}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	w := found[story.Reference]
	fmt.Println(w.Key, w.Kind, w.Title, "under", w.ParentKey, w.Status, w.AcceptanceCriteria)
	// Output: DEMO-2 story Pay without an account under DEMO-1 todo [A guest can pay with a card]
}
