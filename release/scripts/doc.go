// Package scripts holds the tests of the release scripts in ../scripts
// (release.sh, changelog-section.sh); it has no code of its own.
package scripts
