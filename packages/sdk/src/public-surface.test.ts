/**
 * The public surface: each entry exports exactly its pinned names (the root what an application needs, the
 * subpaths their layer without the plumbing, no `export *`); no exported signature names a Bun or Node global
 * type (a Node TypeScript project compiles against these declarations); and no declaration an entry reaches
 * imports valibot (its types are what made a consumer's type check slow: bench/types).
 */
import { describe, expect, test } from "bun:test";
import { dirname, resolve } from "node:path";
import ts from "typescript";

const SRC = import.meta.dir;
const SUBPATHS = [
  "model",
  "wire",
  "transport",
  "transport/http-server",
  "mcp",
  "mcp/server",
  "loop",
  "telemetry",
  "triggers",
  "supervisor",
  "serve",
  "agent",
  "config",
  "store",
];
const INTERNAL = [
  "setLongTimeout",
  "ChildAttempt",
  "CONTROL_FD",
  "parseStartParams",
  "ControlChannel",
  "openInheritedControlIO",
  "reconnectBackoff",
  "reconnectDelay",
  "restartDelay",
  "upstreamError",
  "transportFor",
  "Emitter",
  "paginate",
  "probeRevision",
  "statelessEnvelope",
  "isOn",
  "ConfigSchema",
  "McpServerConfigSchema",
  "getCodec",
  "classify",
];

/**
 * Every name each entry exports (values and types), sorted: the surface is a decision, so a new export is a
 * change to this list. How each subpath's list was derived — from what the CLI, the testkit, the adapters,
 * the otel package and the examples import — is written in packages/sdk/README.md.
 */
const SURFACE: Record<string, string> = {
  ".": `
    Agent AgentApprovals AgentCapabilities AgentConversations AgentDurability AgentFromConfigOptions AgentLimits
    AgentOptions AgentRunOptions AgentServeOptions AgentStream AgentStreamEvent AgentStreamOptions AgentdConfig
    AgentdError ApprovalDecision ApprovalRequest ApprovalRule Conversation ConversationRef LanguageModel
    LegacyRunEvent LocalErrorCode LocalTool LocalToolResult LocalTools LogLevel LogRecord Logger McpError ModelFactory
    RunEvent RunFinish RunFinishFailed RunFinishOk RunResult RunStatus ServeOptions ServedEndpoint Serving
    StandardJSONSchemaV1 StandardSchemaV1 StopReason ToolDefinition ToolReturn Usage createAgent createAgentFromConfig
    createLogger jsonLinesLogger parseConfig tool withLegacyEventNames
  `,
  model: `
    AgentdError AssistantPart BODY_LIMITS BackoffPolicy BodyBound CancelTimer FinishReason JsonAction LanguageModel
    LocalErrorCode LogLevel LogRecord Logger ModelMessage ModelRequest ModelResponse ModelRetry ModelStreamPart
    ModelToolDefinition ReasoningPart RedirectPolicy SseCallbacks SseEvent SseParser TextPart ToolCallPart
    ToolChoice ToolResultPart USAGE_DETAIL_KEYS Usage addUsage backoffDelay bodyTooLarge createSseParser emptyUsage
    extractAction extractJsonObjects fetchFollowingRedirects jsonActionSystemPrompt memoryLogger readBodyPrefix
    readBoundedText renderJsonAction renderToolResultForJsonActions setLongTimeout shownUrl
  `,
  wire: `
    AgentdError Annotations AudioContent BaseMetadata BlobResourceContents BooleanSchema CallToolRequest
    CallToolRequestParams CallToolResult CancelTaskRequest CancelTaskRequestParams CancelTaskResult
    CancelledNotification CancelledNotificationParams ClientCapabilities ClientNotification
    ClientNotificationMethod ClientRequest ClientRequestMethod ClientResult CompleteRequest CompleteRequestParams
    CompleteResult ContentBlock CreateMessageRequest CreateMessageRequestParams CreateMessageResult
    CreateTaskResult Cursor DiscoverResult ElicitRequest ElicitRequestFormParams ElicitRequestParams
    ElicitRequestURLParams ElicitResult ElicitationCompleteNotification ElicitationCompleteNotificationParams
    EmbeddedResource EmptyResult EnumSchema ErrorCode ExtensionCreateTaskResult ExtensionDetailedTask
    GetPromptRequest GetPromptRequestParams GetPromptResult GetTaskPayloadRequest GetTaskPayloadRequestParams
    GetTaskPayloadResult GetTaskRequest GetTaskRequestParams GetTaskResult HANDSHAKE_REVISIONS HandshakeRevision
    Icon Icons ImageContent Implementation InitializeRequest InitializeRequestParams InitializeResult
    InitializedNotification InputRequest InputRequiredResult JSONRPCErrorResponse JSONRPCMessage
    JSONRPCNotification JSONRPCRequest JSONRPCResponse JSONRPCResultResponse JsonObject JsonRpcErrorObject
    JsonRpcErrorResponse JsonRpcMessage JsonRpcNotification JsonRpcRequest JsonRpcResultResponse JsonValue
    LATEST_REVISION LATEST_STATELESS_REVISION LegacyTitledEnumSchema ListPromptsRequest ListPromptsResult
    ListResourceTemplatesRequest ListResourceTemplatesResult ListResourcesRequest ListResourcesResult
    ListRootsRequest ListRootsResult ListTasksRequest ListTasksResult ListToolsRequest ListToolsResult
    LocalErrorCode LoggingLevel LoggingMessageNotification LoggingMessageNotificationParams McpError
    McpNotification McpRequest Meta ModelHint ModelPreferences MultiSelectEnumSchema NotificationMethod
    NotificationParams NotificationParamsOf NotificationTypes NumberSchema PaginatedRequest PaginatedRequestParams
    PaginatedResult PingRequest PrimitiveSchemaDefinition ProgressNotification ProgressNotificationParams
    ProgressToken Prompt PromptArgument PromptListChangedNotification PromptMessage PromptReference
    ProtocolRevision ReadResourceRequest ReadResourceRequestParams ReadResourceResult RelatedTaskMetadata
    RequestId RequestMeta RequestMethod RequestParams RequestParamsOf RequestTypes Resource ResourceContents
    ResourceLink ResourceListChangedNotification ResourceRequestParams ResourceTemplate ResourceTemplateReference
    ResourceUpdatedNotification ResourceUpdatedNotificationParams Result ResultOf Role Root
    RootsListChangedNotification STATELESS_REVISIONS SUPPORTED_REVISIONS SamplingMessage
    SamplingMessageContentBlock SamplingToolChoice ServerCapabilities ServerNotification ServerNotificationMethod
    ServerRequest ServerRequestMethod ServerResult SetLevelRequest SetLevelRequestParams SingleSelectEnumSchema
    StatelessRevision StringSchema SubscribeRequest SubscribeRequestParams SubscriptionFilter Task
    TaskAugmentableMethod TaskAugmentedRequestParams TaskMetadata TaskStatus TaskStatusNotification
    TaskStatusNotificationParams TaskSupport TextContent TextOrBlobResourceContents TextResourceContents
    TitledMultiSelectEnumSchema TitledSingleSelectEnumSchema Tool ToolAnnotations ToolExecution ToolJsonSchema
    ToolListChangedNotification ToolResultContent ToolUseContent URLElicitationRequiredError
    URLElicitationRequiredErrorData UnsubscribeRequest UnsubscribeRequestParams UntitledMultiSelectEnumSchema
    UntitledSingleSelectEnumSchema
  `,
  transport: `
    AuthChallenge BearerTokenEntry ChildExit DEFAULT_HTTP_LIMITS FrameError GetStreamState HttpAdapterName
    HttpAuthProvider HttpMount HttpServerLimits JwtIssuerOptions LoginResult LoginStatus MemoryTransport
    MessageExtra OAuthConfig Permission ReconnectOptions ResourceMetadataOptions SendOptions StdioChildOptions
    StdioChildTransport StdioServerTransport StdioServerTransportOptions StoredTokens StreamableHttpClientOptions
    StreamableHttpClientTransport StreamableHttpServer StreamableHttpServerOptions TokenStore Transport
    TransportPeer createStreamableHttpServer discardPrelaunchedServers isLoopbackHost loadOAuth
    prelaunchStdioServer selfCommand
  `,
  "transport/http-server": `
    BearerTokenEntry DEFAULT_HTTP_LIMITS HttpAdapterName HttpMount HttpServerLimits JwtIssuerOptions Permission
    ResourceMetadataOptions StreamableHttpServer StreamableHttpServerOptions Transport createStreamableHttpServer
    isLoopbackHost
  `,
  mcp: `
    CallToolOptions CapabilityConfig Completer Completers DEFAULT_RECONNECT_POLICY ElicitationHandler
    ElicitationMode ElicitationPolicyConfig ElicitationPolicyName HandlerOptions LossReason ManagedClientEvents
    ManagedClientOptions ManagedClientState ManagedMcpClient McpClient McpClientEvents McpClientOptions
    McpNotificationHandler McpRequestHandler McpServer McpServerOptions NotificationOptions Progress PromptGetter
    PromptList PromptSource RUN_ID_META_KEY ReconnectPolicy Registered RequestContext RequestOptions
    ResourceReader SamplingHandler ServerContext ServerSession ServerSessionEvents TemplateReader ToolDefinition
    ToolHandler ToolOptions VersionNegotiation elicitationPolicy
  `,
  "mcp/server": `
    CapabilityConfig Completer Completers ElicitationHandler ElicitationMode McpServer McpServerOptions
    NotificationOptions Progress PromptGetter RUN_ID_META_KEY Registered RequestContext RequestOptions
    ResourceReader SamplingHandler ServerContext ServerSession ServerSessionEvents TemplateReader ToolDefinition
    ToolHandler ToolOptions
  `,
  loop: `
    ApprovalAction ApprovalChannel ApprovalDecision ApprovalDesk ApprovalRequest ApprovalRule ApprovalViewer
    BudgetWarning GIVE_UP LegacyRunEvent MatchedRule ModelPrices NeedsApproval PendingApproval PendingToolCall RecordedDecision RunApprovals RunContinuation RunEvent RunFailureReason RunLimits RunLoopOptions RunResult
    RunScope RunSuspension RunTracer StopReason ToolCallContext ToolCallOutcome ToolDescriptor ToolHints ToolMode ToolSet
    TraceCarrier TraceSite fenceResourceText fenceToolOutput runLoop withLegacyEventNames
  `,
  telemetry: `
    LoadTelemetryOptions LogLevel LogRecord Logger OtelBackend OtelSignals RunOrigin RunTelemetry Telemetry
    TracedRun createLogger jsonLinesLogger loadTelemetry memoryLogger nullLogger scrubSecrets
  `,
  triggers: `
    CatchUp Clock Concurrency CronMode CronSchedule CronScheduleOptions CronSource CronSourceOptions DropReason
    Emit EmitResult EventSource FileJobStore IntervalSource IntervalSourceOptions JobDocumentStore JobStore
    ManualFireOptions ManualSource MemoryJobStore ResourceContents RunContext RunFunction RunOutcome SourceContext
    StopOptions StoreJobStore StoreJobStoreOptions SubscribableClient SubscriptionSource SubscriptionSourceOptions
    TimerHandle TriggerDefinition TriggerEvent TriggerKind TriggerRouter TriggerRouterEvents TriggerRouterOptions
    contentHash cronRunId intervalRunId manualRunId subscriptionRunId systemClock validateTrigger
  `,
  supervisor: `
    BackoffOptions ChildCommand ChildEndpointOptions ChildResult ChildRunContext ChildRunner ChildSessionEnd
    FailureReason HandleRecord HandleSnapshot HandleStatus SUBAGENT_API_KEY_ENV SUBAGENT_ENTRY SUPERVISOR_DEFAULTS
    SpawnOptions SpawnRequest StartParams SubagentAnswer SubagentFailure SubtreeSettings Supervisor
    SupervisorOptions TaskView serveSubagentChild subagentCommand
  `,
  serve: `
    APPROVALS_URI AgentStatus ApprovalStore CONVERSATIONS_URI LOCAL_PRINCIPAL Principal RUNS_URI RunDetail RunPage
    RunQuery RunRecord RunSummary SelfMcp SelfMcpOptions SelfRunner ServedConversation ServedConversationSummary
    ServedConversations ServedMcp ServedMcpOptions ServedRunner StoredApprovalDesk StoredDeskOptions ToolCallDetail
    TurnDetail canonicalPrincipalId createSelfMcpServer createServedMcp
  `,
  agent: `
    A2aAgentConfig ALREADY_DONE Agent AgentApprovals AgentCapabilities AgentConversations AgentDurability
    AgentFromConfigOptions AgentLifecycleStatus AgentLimits AgentOptions AgentRunOptions AgentServeOptions AgentStream
    AgentStreamEvent AgentStreamOptions AgentTriggerOptions AgentTriggers AgentTriggersOptions ApprovalDecisions
    ConfiguredTokenStore ConnectServerOptions Conversation ConversationBounds ConversationOptions ConversationRef
    ConversationStore ConversationSummary ConversationSummaryReport CronEngine CronSpec DEFAULT_CONVERSATION_BOUNDS
    DEFAULT_MAX_TOKENS DocumentConversationStore DocumentStore DrainOptions GrowthPolicy HttpServeOptions
    HttpServeSettings INTERVAL_TRIGGER_ID IntervalSpec LiveSettings McpToolSet McpToolSetOptions MetricsServeSettings
    ModelDialectName ModelFactory ModelSettings OwnerOptions ReloadOnChange ReloadOnChangeOptions ReloadPlan
    ReloadReport ResumeOptions Run RunFinish RunFinishFailed RunFinishOk RunOrigin RunOutcome RunState RunStatus
    RunTransition SUBAGENT_INSTRUCTIONS SUMMARY_MARK ServeOptions ServeSettings ServedEndpoint Serving
    SubagentChildOptions SubscriptionSpec ToolClient TriggerPlan TriggerRunData TriggerSpec TriggerState TriggerStatus
    TriggersStarted TrimBounds Trimmed VersionedConversation a2aServeOptionsFromConfig agentOptionsFromConfig
    approvalDeskFromConfig capabilitiesFromConfig checkCronEngine connectManagedServer connectServer
    conversationsFromConfig createAgent createAgentFromConfig cronTriggerId httpServeOptionsFromConfig isAlreadyDone
    limitsFromConfig localApprovalsDir localConversationsDir metricsServeOptionsFromConfig modelFromConfig newRunId
    parseListen reloadOnChange runStatusOf runSubagentChild serveOptionsFromConfig subscriptionTriggerId
    supervisorFromConfig tokenStoreFromConfig triggerSpecsFromConfig trimConversation validateTriggerSpec
  `,
  config: `
    AgentdConfig ApiKeyChoice CapabilitiesConfig ConfigOverrides DEFAULT_CONFIG_FILE DIALECT_API_KEY_VARIABLES
    DURATION_FORMS DurabilityConfig HttpServerConfig IntervalTriggerConfig LimitsConfig McpServerConfig
    McpServerOAuthConfig McpServerToolsConfig ModelConfig PromptArgumentConfig PromptConfig PromptMessageConfig RemoteA2aAgentConfig
    ResolvedConfig SamplingConfig ScheduleTriggerConfig ScopeConfig ServeConfig StdioServerConfig
    SubscriptionTriggerConfig TriggersConfig apiKeyVariables chooseApiKey durationProblem formatDuration
    overridesFromFlags parseConfig parseDuration readConfigFile resolveConfig runIdFrom
  `,
  store: `
    ChangeListener ClaimDocument ClaimOutcome ClaimStore CompareAndSetResult DirectoryBackend HeldClaim ListedKey
    McpStoreTokenStore McpStoreTokenStoreOptions RedisBackend RedisBackendOptions RunClaims RunClaimsOptions
    ServeStoreHttpOptions ServeStoreOptions ServedStore StoreBackend StoreClient StoreHttpOptions StoreLocation
    StoreServerOptions StoredDocument createStoreServer openStoreBackend serveStoreHttp serveStoreStdio
    storeDocumentUri
  `,
};

/** The checker's view of the entries: what a TypeScript user can import from each. */
function exportedNames(): Map<string, string[]> {
  const files = Object.keys(SURFACE).map((s) => resolve(SRC, s, "index.ts"));
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: ["bun"],
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["bun"],
  });
  const checker = program.getTypeChecker();
  const out = new Map<string, string[]>();
  for (const [i, sub] of Object.keys(SURFACE).entries()) {
    const source = program.getSourceFile(files[i] as string);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`${sub}: not a module`);
    out.set(
      sub,
      checker
        .getExportsOfModule(symbol)
        .map((e) => e.name)
        .sort(),
    );
  }
  return out;
}

describe("exports", () => {
  test("each entry exports exactly its pinned names (values and types)", () => {
    const actual = exportedNames();
    for (const [sub, names] of Object.entries(SURFACE)) expect({ [sub]: actual.get(sub) }).toEqual({ [sub]: names.trim().split(/\s+/) });
    expect(
      Object.keys(SURFACE)
        .filter((s) => s !== ".")
        .sort(),
    ).toEqual([...SUBPATHS].sort());
  }, 120_000);

  test("each server-only entry exports a part of its wide entry's names (one name, one thing, on both)", () => {
    const names = (sub: string) => SURFACE[sub]?.trim().split(/\s+/) ?? [];
    for (const [part, whole] of [
      ["mcp/server", "mcp"],
      ["transport/http-server", "transport"],
    ] as const)
      expect({ [part]: names(part).filter((n) => !names(whole).includes(n)) }).toEqual({ [part]: [] });
  });

  test("the root's run-time values are what an application calls: the agent, tools, config, errors, loggers", async () => {
    const names = Object.keys(await import("./index.ts")).sort();
    const declared = SURFACE["."]?.trim().split(/\s+/) ?? [];
    expect(names.every((n) => declared.includes(n))).toBe(true);
    expect(names).toContain("createAgent");
  });

  test.each(["", ...SUBPATHS.filter((s) => s !== "model")])("no plumbing from '%s'", async (sub) => {
    const names = Object.keys(await import(sub ? `./${sub}/index.ts` : "./index.ts"));
    expect(names.filter((n) => INTERNAL.includes(n))).toEqual([]);
  });

  test("no entry file re-exports with `export *` (each name is chosen)", async () => {
    for (const sub of ["", ...SUBPATHS]) {
      const text = await Bun.file(resolve(SRC, sub, "index.ts")).text();
      expect({ [sub || "."]: /^export \*/m.test(text) }).toEqual({ [sub || "."]: false });
    }
  });
});

describe("declarations", () => {
  // One declaration emit serves both checks (about 40 s on a quiet 2-core machine, far more when it is loaded).
  test("no exported signature of any entry names a Bun or Node global type, and none imports valibot", () => {
    const entries = [resolve(SRC, "index.ts"), ...SUBPATHS.map((s) => resolve(SRC, s, "index.ts"))];
    const out = new Map<string, string>();
    const program = ts.createProgram(entries, {
      declaration: true,
      emitDeclarationOnly: true,
      allowImportingTsExtensions: true,
      rewriteRelativeImportExtensions: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: ["bun"],
      skipLibCheck: true,
      strict: true,
      outDir: "/virtual",
      rootDir: SRC,
    });
    program.emit(undefined, (file, text) => out.set(file, text));
    // Follow imports from the entries' declarations: what a consumer's compiler reads.
    const seen = new Set<string>();
    const offending: string[] = [];
    // valibot's own declarations and the types inferred from schemas cost a consumer's compiler tens of seconds
    // (bench/types): the public types are declared interfaces (wire/types/*.generated.ts, config/types.generated.ts), the schemas internal.
    const valibot: string[] = [];
    const visit = (file: string) => {
      const text = out.get(file);
      if (text === undefined || seen.has(file)) return;
      seen.add(file);
      if (/(?:from\s+|import\()"valibot"/.test(text)) valibot.push(file.slice("/virtual/".length));
      for (const line of text.split("\n"))
        if (/\bBun\.|\bNodeJS\./.test(line) && !line.trim().startsWith("*")) offending.push(`${file}: ${line.trim()}`);
      for (const m of text.matchAll(/(?:from\s+|import\()"(\.[^"]+)"/g))
        visit(resolve(dirname(file), m[1]!.replace(/\.(ts|js)$/, ".d.ts")));
    };
    for (const e of entries) visit(resolve("/virtual", e.slice(SRC.length + 1).replace(/\.ts$/, ".d.ts")));
    expect(seen.size).toBeGreaterThan(50);
    expect(offending).toEqual([]);
    expect(valibot).toEqual([]);
  }, 300_000);
});
