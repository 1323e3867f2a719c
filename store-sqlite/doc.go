// Package sqlitestore is a placeholder until its issue builds it.
package sqlitestore
