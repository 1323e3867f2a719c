// Package mcpserver is a placeholder until its issue builds it.
package mcpserver
