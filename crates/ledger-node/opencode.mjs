// @ts-check
// `ledger-fingerprint/opencode`: a ready OpenCode plugin (docs/agents.md).
//
// Its tools are the agent's tools of `ledger mcp`, listed by the core
// (`agentTools`) and called through the Node door (`Workspace.agentCall`):
// nothing about a tool is written here. A tool `check` is offered to the model
// as `ledger_check`, the name OpenCode gives the same tool of the MCP server
// named `ledger`. Besides the tools, the plugin:
// - runs `check` when a session is created and puts its report in that
//   session's system prompt, so the agent starts from the records;
// - adds the state envelope of every active change to a compacted session's
//   context, so the agent resumes from the record, not from memory.
//
// OpenCode loads it as the package's plugin (`"plugin": ["ledger-fingerprint"]`
// in opencode.json: package.json's `exports["./server"]` is this file), with
// options (`["ledger-fingerprint", {"readOnly": true}]`): `workspace`
// (default: the worktree) and `readOnly` (only the tools that read, as
// `ledger mcp --read-only`). It is also the subpath export
// `ledger-fingerprint/opencode`, for a plugin file of one's own.

import { createRequire } from 'node:module'

import { tool } from '@opencode-ai/plugin'

const require = createRequire(import.meta.url)
/** @type {typeof import('./index.js')} */
const ledger = require('./index.js')

/** The prefix of the tools' names, as OpenCode names an MCP server's tools. */
const PREFIX = 'ledger_'

/**
 * The plugin.
 * @type {import('@opencode-ai/plugin').Plugin}
 */
export const LedgerPlugin = async (input, options) => {
  const workspace = typeof options?.workspace === 'string' ? options.workspace : input.worktree || input.directory
  const readOnly = options?.readOnly === true
  const ws = new ledger.Workspace(workspace)
  const listed = await ledger.agentTools({ readOnly })
  /**
   * The check report of each session, by session id, started when the
   * session is created (OpenCode does not wait for the event hook) and
   * awaited when its first system prompt is made.
   * @type {Map<string, Promise<string>>}
   */
  const reports = new Map()
  /** @param {string} sessionID */
  const reportOf = (sessionID) => {
    let report = reports.get(sessionID)
    if (report === undefined) {
      report = sessionReport(ws, readOnly)
      reports.set(sessionID, report)
    }
    return report
  }

  /** @type {Record<string, import('@opencode-ai/plugin').ToolDefinition>} */
  const tools = {}
  for (const listing of listed) {
    tools[PREFIX + listing.name] = tool({
      description: listing.description,
      args: argsOf(/** @type {Record<string, any>} */ (listing.inputSchema)),
      async execute(args, context) {
        return answer(await call(ws, listing.name, args, readOnly, context.abort))
      },
    })
  }
  const schemas = new Map(listed.map((listing) => [PREFIX + listing.name, listing.inputSchema]))

  return {
    tool: tools,
    // The model is shown each tool's own JSON Schema, not the loose shape
    // OpenCode's argument check needs.
    async 'tool.definition'({ toolID }, output) {
      const schema = schemas.get(toolID)
      if (schema !== undefined) output.parameters = schema
    },
    async event({ event }) {
      if (event.type === 'session.created') {
        await reportOf(event.properties.info.id)
      } else if (event.type === 'session.deleted') {
        reports.delete(event.properties.info.id)
      }
    },
    async 'experimental.chat.system.transform'({ sessionID }, output) {
      if (sessionID !== undefined) output.system.push(await reportOf(sessionID))
    },
    async 'experimental.session.compacting'(_input, output) {
      output.context.push(await envelope(ws, readOnly))
    },
  }
}

/**
 * The module as OpenCode loads a plugin (its `PluginModule`).
 * @type {import('@opencode-ai/plugin').PluginModule}
 */
export default { id: 'ledger-fingerprint', server: LedgerPlugin }

/**
 * The argument shape OpenCode checks a call against: each field of the tool's
 * input schema, of any value (the core checks them exactly and refuses a bad
 * one with `invalid-argument`), required where the schema says.
 * @param {Record<string, any>} schema
 * @returns {Record<string, import('zod').ZodType>}
 */
function argsOf(schema) {
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  /** @type {Record<string, import('zod').ZodType>} */
  const shape = {}
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const any = tool.schema.any().describe(typeof field?.description === 'string' ? field.description : name)
    shape[name] = required.has(name) ? any : any.optional()
  }
  return shape
}

/**
 * Calls the tool `name`; a LedgerError becomes an Error whose message starts
 * with its code (`error[read-only]: …`), which OpenCode shows the model.
 * @param {InstanceType<typeof ledger.Workspace>} ws
 * @param {string} name
 * @param {Record<string, unknown>} args
 * @param {boolean} readOnly
 * @param {AbortSignal | undefined} signal
 */
async function call(ws, name, args, readOnly, signal) {
  const given = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined))
  try {
    return await ws.agentCall(name, { arguments: given, readOnly, ...(signal ? { signal } : {}) })
  } catch (err) {
    if (err instanceof ledger.LedgerError) {
      throw new Error(`error[${err.code}]: ${err.message}`, { cause: err })
    }
    throw err
  }
}

/**
 * A tool's answer as OpenCode shows it: the short text, with the structured
 * result in the metadata.
 * @param {import('./index.js').AgentReply} reply
 * @returns {import('@opencode-ai/plugin').ToolResult}
 */
function answer(reply) {
  return { output: reply.text, metadata: { result: reply.result } }
}

/**
 * The report a new session starts with.
 * @param {InstanceType<typeof ledger.Workspace>} ws
 * @param {boolean} readOnly
 */
async function sessionReport(ws, readOnly) {
  try {
    const reply = await ws.agentCall('check', { readOnly })
    return `ledger check at the start of this session (from the records, not from memory; call ${PREFIX}check again after any change):\n${reply.text}`
  } catch (err) {
    return `ledger check could not run at the start of this session: ${describe(err)}`
  }
}

/**
 * The state envelope of every active change, for a compacted session.
 * @param {InstanceType<typeof ledger.Workspace>} ws
 * @param {boolean} readOnly
 */
async function envelope(ws, readOnly) {
  try {
    const report = /** @type {{changes: Array<{change: string}>}} */ ((await ws.agentCall('check', { readOnly })).result)
    const parts = [`ledger state envelope (resume from this record, not from memory; call ${PREFIX}check first):`]
    for (const { change } of report.changes) {
      const state = await ws.agentCall('state_show', { arguments: { change }, readOnly })
      parts.push(`change ${change}:\n${state.text}`)
    }
    if (report.changes.length === 0) parts.push('no active change')
    return parts.join('\n')
  } catch (err) {
    return `ledger could not read the state envelope: ${describe(err)}`
  }
}

/** @param {unknown} err */
function describe(err) {
  if (err instanceof ledger.LedgerError) return `error[${err.code}]: ${err.message}`
  return err instanceof Error ? err.message : String(err)
}
