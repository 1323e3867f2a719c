// Package jira is a placeholder until its issue builds it.
package jira
