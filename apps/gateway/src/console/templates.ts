/** Starting points for "new workflow": YAML the editor then validates like any other. */
export const TEMPLATES: Record<string, { title: string; yaml: string }> = {
  transform: {
    title: 'Transform the input',
    yaml: `name: Greet
slug: greet-new
description: Builds a greeting from input.name.
input_schema:
  type: object
  required: [name]
  properties:
    name: {type: string}
steps:
  - key: shape
    type: transform
    expression: "{ 'greeting': 'Hello, ' & input.name }"
output: steps.shape.output
`,
  },
  review: {
    title: 'Wait for a person to approve',
    yaml: `name: Approval
slug: approval
steps:
  - key: check
    type: review
    title: Approve this request
    instructions: Check the input before it goes on.
    data: input
  - key: done
    type: transform
    expression: "'approved'"
`,
  },
  http: {
    title: 'Call an HTTP API',
    yaml: `name: Fetch
slug: fetch
description: Reads a page and keeps its status.
steps:
  - key: get
    type: http
    method: GET
    url: https://example.com/
    timeout: 10s
    retry:
      max_attempts: 3
      interval: 2s
output: steps.get.output.status
`,
  },
};
