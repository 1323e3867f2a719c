package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guardLines stands between the client's stdin and the SDK's transport,
// which ends the whole session (exit 70) at the first line that is not a
// JSON-RPC message. A line that is not JSON is answered with JSON-RPC's
// parse error (-32700), a JSON object that is not a JSON-RPC message with
// its invalid request (-32600), as JSON-RPC 2.0 says a server answers
// them; the line is dropped and the server keeps serving. The answer
// carries the line's id when it has one, else no id: MCP's schema
// (2025-11-25 and later) makes an error's id optional for this, where
// JSON-RPC 2.0 writes null and older MCP versions require one — so in a
// session that negotiated an older version, an id-less answer would not be
// a valid message, and the line is only dropped (with the warning on
// stderr). Blank lines are dropped. Every other line passes on as it came.
// A line longer than the SDK's limit passes on unread, and the SDK refuses
// it as before.
//
// out is the writer the transport writes to: lockedWriter keeps each
// answer whole when both write.
func guardLines(in io.Reader, out *lockedWriter, logger *slog.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		version := "" // the protocol version the client asked for in initialize
		for {
			line, err := readLine(br, mcp.DefaultMaxLineLength)
			reply := refuseLine(line)
			switch {
			case len(line) == 0:
			case reply == nil:
				if v := initializeVersion(line); v != "" {
					version = v
				}
				if _, werr := pw.Write(line); werr != nil {
					return // the transport stopped reading
				}
			case reply.ID == nil && version != "" && version < idlessErrors:
				logger.Warn("ignored an input line that is not a JSON-RPC message (this protocol version has no answer without an id)", "code", reply.Error.Code, "protocol_version", version)
			default:
				logger.Warn("ignored an input line that is not a JSON-RPC message; answered with a JSON-RPC error", "code", reply.Error.Code)
				b, _ := json.Marshal(reply)
				if _, werr := out.Write(append(b, '\n')); werr != nil {
					pw.CloseWithError(werr)
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					pw.Close()
				} else {
					pw.CloseWithError(err)
				}
				return
			}
		}
	}()
	return pr
}

// readLine reads up to and including the next '\n'; past limit bytes it
// returns what it has (the SDK then refuses the over-long message).
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) || len(line) > limit {
			if errors.Is(err, bufio.ErrBufferFull) {
				err = nil
			}
			return line, err
		}
	}
}

// idlessErrors is the first MCP protocol version whose error response may
// leave out its id (for a message whose id could not be read).
const idlessErrors = "2025-11-25"

// initializeVersion is the protocolVersion of an initialize request line,
// or "".
func initializeVersion(line []byte) string {
	var m struct {
		Method string `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "initialize" {
		return ""
	}
	return m.Params.ProtocolVersion
}

// lineError is a JSON-RPC error answer to a line that is not a message.
type lineError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Error   struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// refuseLine is the answer to a line that is not a JSON-RPC message, or
// nil for a line to pass on (a message, a batch, a blank line's nothing,
// or an over-long line the SDK refuses itself).
func refuseLine(line []byte) *lineError {
	text := bytes.TrimSpace(line)
	if len(text) == 0 || len(line) > mcp.DefaultMaxLineLength {
		return nil
	}
	reply := &lineError{JSONRPC: "2.0"}
	if !json.Valid(text) {
		reply.Error.Code = jsonrpc.CodeParseError
		reply.Error.Message = fmt.Sprintf("Parse error: the line (%d bytes) is not JSON, so it was ignored. Send one JSON-RPC 2.0 message per line.", len(text))
		return reply
	}
	if text[0] == '[' {
		return nil // a batch: the SDK answers it
	}
	if _, err := jsonrpc.DecodeMessage(text); err == nil {
		return nil
	}
	var withID struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(text, &withID) == nil && isID(withID.ID) {
		reply.ID = withID.ID
	}
	reply.Error.Code = jsonrpc.CodeInvalidRequest
	reply.Error.Message = "Invalid Request: the line is JSON but not a JSON-RPC 2.0 request, notification or response, so it was ignored."
	return reply
}

// isID reports whether raw is a JSON-RPC id (a string or a number).
func isID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// lockedWriter writes each Write whole, one at a time: the transport's
// messages and guardLines' answers never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
