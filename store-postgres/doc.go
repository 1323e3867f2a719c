// Package pgstore is a placeholder until its issue builds it.
package pgstore
