package jiratest_test

import (
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

func recordForContract(t *testing.T, s *jiratest.Server) {}
