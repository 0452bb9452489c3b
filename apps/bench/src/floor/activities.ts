/**
 * The floor's one activity: the bench workflow's transform step
 * (`{ 'greeting': 'hello ' & input.name }`, fixtures.ts) written by hand in plain JS.
 */
export interface GreetInput {
  name: string;
}

export interface Greeting {
  greeting: string;
}

export const floorActivities = {
  async greet(input: GreetInput): Promise<Greeting> {
    return { greeting: `hello ${input.name}` };
  },
};

export type FloorActivities = typeof floorActivities;
