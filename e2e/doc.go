// Package e2e holds the end-to-end suite.
package e2e
