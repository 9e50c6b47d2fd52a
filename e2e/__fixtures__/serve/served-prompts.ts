/**
 * A `prompts` config block for the served-prompts tests: the two prompts the conformance scenarios call by
 * name (`test_simple_prompt`, `test_prompt_with_arguments`, with completion values for `arg1`), and a
 * review prompt with an optional argument and an assistant turn.
 */
export const CONFORMANCE_PROMPTS = {
  test_simple_prompt: { description: "A simple prompt without arguments", text: "This is a simple prompt for testing." },
  test_prompt_with_arguments: {
    title: "Prompt with arguments",
    description: "A prompt with two required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true, completions: ["testValue1", "Test-two", "other"] },
      { name: "arg2", description: "Second test argument", required: true },
    ],
    text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'",
  },
  review: {
    description: "Review a pull request",
    arguments: [
      { name: "pr", description: "The pull request number", required: true, completions: ["41", "42", "420"] },
      { name: "focus", description: "What to look at first" },
    ],
    messages: [
      { role: "user", text: "Review pull request {{pr}}. Focus: {{focus}}" },
      { role: "assistant", text: "I will read the diff of {{pr}} first." },
      { role: "user", text: "Then answer with a verdict." },
    ],
  },
};
