// Drives the real `dwire mcp` with the official TypeScript MCP SDK client,
// the way a host does: StdioClientTransport passes the server only the
// SDK's short list of inherited variables (HOME, PATH, …) plus the host
// entry's own `env`. It prints one JSON object of what it saw on stdout;
// e2e/tsclient_test.go asserts on it.
//
// Environment:
//   DWIRE_BIN       the dwire binary
//   DWIRE_WORKDIR   the server's working directory
//   DWIRE_MODE      configured | noconfig | notoken
//   DWIRE_PLAN      (configured) the document to preview, relative to the workspace
//   JIRA_API_TOKEN  the token; passed in the entry's env except in notoken mode
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const mode = process.env.DWIRE_MODE;
const entry = {
  command: process.env.DWIRE_BIN,
  args: ['mcp'],
  cwd: process.env.DWIRE_WORKDIR,
  stderr: 'pipe',
};
if (mode !== 'notoken') {
  entry.env = { JIRA_API_TOKEN: process.env.JIRA_API_TOKEN };
}

const out = { mode, calls: [] };
const transport = new StdioClientTransport(entry);
let stderr = '';
transport.stderr?.on('data', (b) => { stderr += b.toString(); });
const client = new Client({ name: 'dwire-e2e-tsclient', version: '1.0.0' });

// call records a tool call's structured result, or its JSON-RPC error.
async function call(name, args) {
  const rec = { name };
  try {
    const res = await client.callTool({ name, arguments: args });
    rec.isError = res.isError === true;
    rec.result = res.structuredContent;
  } catch (e) {
    rec.error = { code: e.code, message: e.message, data: e.data };
  }
  out.calls.push(rec);
  return rec;
}

try {
  await client.connect(transport);
  out.serverInfo = client.getServerVersion();
  out.instructions = client.getInstructions();
  const tl = await client.listTools();
  out.tools = tl.tools.map((t) => ({
    name: t.name,
    annotations: t.annotations,
    hasOutputSchema: t.outputSchema !== undefined,
    outputType: t.outputSchema?.type,
  }));
  if (mode === 'configured') {
    const pv = await call('import_preview', { path: process.env.DWIRE_PLAN });
    const handle = pv.result?.preview_handle;
    await call('import_commit', { preview_handle: handle, confirmed: false });
    const key = 'ts-' + Date.now();
    await call('import_commit', { preview_handle: handle, confirmed: true, idempotency_key: key });
    await call('import_commit', { preview_handle: handle, confirmed: true, idempotency_key: key });
    await call('workitem_query', { document: pv.result?.document });
  } else {
    await call('workitem_query', {});
    await call('import_preview', { path: 'plan.md' });
    // Still alive: the list and a second call answer.
    out.toolsAfter = (await client.listTools()).tools.length;
    await call('workitem_get', { item: 'DEMO-1' });
  }
  await client.close();
} catch (e) {
  out.fatal = String(e?.stack ?? e);
}
out.stderr = stderr;
process.stdout.write(JSON.stringify(out) + '\n');
