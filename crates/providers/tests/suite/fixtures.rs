//! Recorded streams in each provider's documented wire format (shapes taken
//! from the providers' streaming reference examples).

pub(crate) const CHAT_TEXT: &str = r#"data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"content":" there!"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":2},"completion_tokens_details":{"reasoning_tokens":0}}}

data: [DONE]
"#;

pub(crate) const CHAT_PARALLEL_TOOLS: &str = r#"data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"loc"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ation\": \"Paris\"}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_def","type":"function","function":{"name":"get_time","arguments":""}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\": \"CET\"}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":80,"completion_tokens":40,"total_tokens":120}}

data: [DONE]
"#;

/// A compatible server that repeats id and name in every chunk, sends
/// `content: null` and reasoning in `reasoning_content`, and omits `[DONE]`.
pub(crate) const CHAT_REPEATING_SERVER: &str = r#"data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"Need the weather."},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":"}}]},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"\"Oslo\"}"}}]},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{"content":null},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30}}
"#;

pub(crate) const CHAT_LENGTH: &str = r#"data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Once upon"},"finish_reason":null}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}

data: [DONE]
"#;

pub(crate) const CHAT_ERROR_MID_STREAM: &str = r#"data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Par"},"finish_reason":null}]}

data: {"error":{"message":"The server is overloaded.","type":"server_error","code":"overloaded"}}
"#;

pub(crate) const RESPONSES_TEXT: &str = r#"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_67c9","object":"response","status":"in_progress","model":"gpt-4.1","output":[]}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_67c9","object":"response","status":"in_progress","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_67c9","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":3,"item_id":"msg_67c9","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_67c9","output_index":0,"content_index":0,"delta":"Hi"}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_67c9","output_index":0,"content_index":0,"delta":" there!"}

event: response.output_text.done
data: {"type":"response.output_text.done","sequence_number":6,"item_id":"msg_67c9","output_index":0,"content_index":0,"text":"Hi there!"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":{"id":"msg_67c9","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi there!","annotations":[]}]}}

event: response.completed
data: {"type":"response.completed","sequence_number":8,"response":{"id":"resp_67c9","object":"response","status":"completed","output":[],"usage":{"input_tokens":37,"input_tokens_details":{"cached_tokens":0},"output_tokens":11,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":48}}}
"#;

pub(crate) const RESPONSES_REASONING_TOOLS: &str = r#"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","sequence_number":2,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Checking both cities."}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Checking both cities."}],"encrypted_content":"gAAAAB-enc"}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":4,"output_index":1,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_a","name":"get_weather"}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":5,"item_id":"fc_1","output_index":1,"delta":"{\"location\":"}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":6,"item_id":"fc_1","output_index":1,"delta":"\"Paris\"}"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":7,"output_index":1,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"location\":\"Paris\"}","call_id":"call_a","name":"get_weather"}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":8,"output_index":2,"item":{"id":"fc_2","type":"function_call","status":"in_progress","arguments":"","call_id":"call_b","name":"get_weather"}}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","sequence_number":9,"item_id":"fc_2","output_index":2,"delta":"{\"location\":\"Rome\"}"}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":10,"output_index":2,"item":{"id":"fc_2","type":"function_call","status":"completed","arguments":"{\"location\":\"Rome\"}","call_id":"call_b","name":"get_weather"}}

event: response.completed
data: {"type":"response.completed","sequence_number":11,"response":{"id":"resp_1","status":"completed","output":[],"usage":{"input_tokens":50,"output_tokens":30,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":80}}}
"#;

pub(crate) const RESPONSES_INCOMPLETE: &str = r#"event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Once"}

event: response.incomplete
data: {"type":"response.incomplete","sequence_number":2,"response":{"id":"resp_2","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":16}}}
"#;

pub(crate) const RESPONSES_ERROR: &str = r#"event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Par"}

event: error
data: {"type":"error","sequence_number":2,"code":"rate_limit_exceeded","message":"Rate limit reached for requests","param":null}
"#;

pub(crate) const ANTHROPIC_TEXT: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}

event: message_stop
data: {"type":"message_stop"}
"#;

pub(crate) const ANTHROPIC_THINKING_TOOLS: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I need the weather "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"in two cities."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Checking."}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Fra"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"ncisco, CA\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_02","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"Oslo\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}
"#;

pub(crate) const ANTHROPIC_MAX_TOKENS: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","content":[],"model":"claude","usage":{"input_tokens":5,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Once upon"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":2}}

event: message_stop
data: {"type":"message_stop"}
"#;

pub(crate) const ANTHROPIC_ERROR: &str = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_3","type":"message","role":"assistant","content":[],"model":"claude","usage":{"input_tokens":5,"output_tokens":1}}}

event: error
data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
"#;

pub(crate) const GEMINI_TEXT: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "Hello"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 8,"totalTokenCount": 8},"modelVersion": "gemini-2.5-flash"}

data: {"candidates": [{"content": {"parts": [{"text": " there!"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 8,"candidatesTokenCount": 3,"totalTokenCount": 11},"modelVersion": "gemini-2.5-flash"}
"#;

pub(crate) const GEMINI_THINKING_TOOLS: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "**Planning** I should look up both.","thought": true}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.5-pro"}

data: {"candidates": [{"content": {"parts": [{"functionCall": {"name": "get_weather","args": {"location": "Paris"}},"thoughtSignature": "CiQB0e2Kb-sig"},{"functionCall": {"name": "get_weather","args": {"location": "Rome"}}}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 60,"candidatesTokenCount": 20,"thoughtsTokenCount": 45,"totalTokenCount": 125},"modelVersion": "gemini-2.5-pro"}
"#;

pub(crate) const GEMINI_MAX_TOKENS: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "Once upon"}],"role": "model"},"finishReason": "MAX_TOKENS","index": 0}],"usageMetadata": {"promptTokenCount": 4,"candidatesTokenCount": 2,"totalTokenCount": 6}}
"#;

pub(crate) const GEMINI_ERROR: &str = r#"data: {"candidates": [{"content": {"parts": [{"text": "Par"}],"role": "model"},"index": 0}]}

data: {"error": {"code": 429,"message": "Resource has been exhausted (e.g. check quota).","status": "RESOURCE_EXHAUSTED"}}
"#;

pub(crate) const OLLAMA_TEXT: &str = r#"{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00","message":{"role":"assistant","content":"Hello"},"done":false}
{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00","message":{"role":"assistant","content":" there!"},"done":false}
{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000}
"#;

/// Thinking, and tool arguments both as an object and as a JSON string.
pub(crate) const OLLAMA_THINKING_TOOLS: &str = r#"{"model":"qwen3","created_at":"2025-05-29T09:35:32Z","message":{"role":"assistant","content":"","thinking":"Two cities."},"done":false}
{"model":"qwen3","created_at":"2025-05-29T09:35:33Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"location":"Paris"}}},{"function":{"name":"get_weather","arguments":"{\"location\": \"Rome\"}"}}]},"done":false}
{"model":"qwen3","created_at":"2025-05-29T09:35:34Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":40,"eval_count":22}
"#;

pub(crate) const OLLAMA_LENGTH: &str = r#"{"model":"llama3.2","created_at":"2023-08-04T08:52:19Z","message":{"role":"assistant","content":"Once upon"},"done":false}
{"model":"llama3.2","created_at":"2023-08-04T08:52:20Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"length","prompt_eval_count":4,"eval_count":2}
"#;

pub(crate) const OLLAMA_ERROR: &str = r#"{"model":"llama3.2","created_at":"2023-08-04T08:52:19Z","message":{"role":"assistant","content":"Par"},"done":false}
{"error":"an error was encountered while running the model: unexpected EOF"}
"#;

// Bedrock ConverseStream: one event-stream message per line, written as
// `:event-type` then the JSON payload (shapes from the ConverseStream API
// reference; `p` is the padding Bedrock adds against length side channels).
// The tests encode each line into a binary frame.

pub(crate) const BEDROCK_TEXT: &str = r#"messageStart {"p":"abcdefghijkl","role":"assistant"}
contentBlockDelta {"contentBlockIndex":0,"delta":{"text":"Hello"},"p":"abcdefghijklmnop"}
contentBlockDelta {"contentBlockIndex":0,"delta":{"text":" there!"},"p":"abcd"}
contentBlockStop {"contentBlockIndex":0,"p":"abcdefghijklmnopqrstuvwx"}
messageStop {"p":"abcdefghijklmnopqrst","stopReason":"end_turn"}
metadata {"metrics":{"latencyMs":412},"p":"abc","usage":{"inputTokens":18,"outputTokens":4,"totalTokens":32,"cacheReadInputTokens":6,"cacheWriteInputTokens":4}}
"#;

pub(crate) const BEDROCK_THINKING_TOOLS: &str = r#"messageStart {"p":"abcdefghijkl","role":"assistant"}
contentBlockDelta {"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"I need the weather "}},"p":"abcdefgh"}
contentBlockDelta {"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"in two cities."}},"p":"abcdefgh"}
contentBlockDelta {"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"EqoBCkgIARABGAIiQL2Zsig"}},"p":"ab"}
contentBlockStop {"contentBlockIndex":0,"p":"abcdefghijklmnopqrstuvwx"}
contentBlockDelta {"contentBlockIndex":1,"delta":{"text":"Checking."},"p":"abcdefghijk"}
contentBlockStop {"contentBlockIndex":1,"p":"abcdefghijklmnopqrstuvwx"}
contentBlockStart {"contentBlockIndex":2,"p":"abcdefghijklmnop","start":{"toolUse":{"name":"get_weather","toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"}}}
contentBlockDelta {"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\"location\": \"San Fra"}},"p":"abcdefghij"}
contentBlockDelta {"contentBlockIndex":2,"delta":{"toolUse":{"input":"ncisco, CA\"}"}},"p":"abcdefghij"}
contentBlockStop {"contentBlockIndex":2,"p":"abcdefghijklmnopqrstuvwx"}
contentBlockStart {"contentBlockIndex":3,"p":"abcdefghijklmnop","start":{"toolUse":{"name":"get_weather","toolUseId":"tooluse_2"}}}
contentBlockDelta {"contentBlockIndex":3,"delta":{"toolUse":{"input":"{\"location\": \"Oslo\"}"}},"p":"abcdefghij"}
contentBlockStop {"contentBlockIndex":3,"p":"abcdefghijklmnopqrstuvwx"}
messageStop {"p":"abcdefghijklmnopqrst","stopReason":"tool_use"}
metadata {"metrics":{"latencyMs":1201},"p":"abc","usage":{"inputTokens":472,"outputTokens":89,"totalTokens":561}}
"#;

pub(crate) const BEDROCK_MAX_TOKENS: &str = r#"messageStart {"p":"abcdefghijkl","role":"assistant"}
contentBlockDelta {"contentBlockIndex":0,"delta":{"text":"Once upon"},"p":"abcdefghijklmnop"}
contentBlockStop {"contentBlockIndex":0,"p":"abcdefghijklmnopqrstuvwx"}
messageStop {"p":"abcdefghijklmnopqrst","stopReason":"max_tokens"}
metadata {"metrics":{"latencyMs":90},"p":"abc","usage":{"inputTokens":5,"outputTokens":2,"totalTokens":7}}
"#;
