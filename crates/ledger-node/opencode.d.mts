// The types of `ledger-fingerprint/opencode` (opencode.mjs): an OpenCode
// plugin, typed by the pinned `@opencode-ai/plugin` package.
import type { Plugin, PluginModule } from '@opencode-ai/plugin'

/** The plugin: the agent's tools of `ledger mcp`, a check when a session starts, the state envelope on compaction. */
export declare const LedgerPlugin: Plugin
/** The module as OpenCode loads it: `{ id: 'ledger-fingerprint', server: LedgerPlugin }`. */
declare const module: PluginModule
export default module
