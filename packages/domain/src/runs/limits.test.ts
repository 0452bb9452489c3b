import { MAX_RUN_DATA_BYTES, MAX_STEP_OUTPUT_BYTES, jsonBytes, outputOverLimit, stepOutputProblem } from './limits';

describe('stepOutputProblem', () => {
  const output = { text: 'x'.repeat(1000) };
  const bytes = jsonBytes(output);

  test('an output that fits its run is stored', () => {
    expect(stepOutputProblem(output, 0)).toBeNull();
    expect(stepOutputProblem(output, MAX_RUN_DATA_BYTES - bytes)).toBeNull();
  });

  test('the output that would take the run past its bound fails with run_data_too_large', () => {
    expect(stepOutputProblem(output, MAX_RUN_DATA_BYTES - bytes + 1)).toEqual({
      code: 'run_data_too_large',
      message: expect.stringContaining(String(MAX_RUN_DATA_BYTES)),
    });
  });

  test("the step's own bounds come first", () => {
    const large = 'x'.repeat(MAX_STEP_OUTPUT_BYTES);
    expect(stepOutputProblem(large, 0)).toMatchObject({ code: 'step_output_too_large' });
    expect(stepOutputProblem(JSON.parse('['.repeat(65) + ']'.repeat(65)), 0)).toMatchObject({ code: 'step_output_too_deep' });
    expect(stepOutputProblem({ a: 'x\u0000' }, 0)).toMatchObject({ code: 'step_output_not_storable' });
    expect(stepOutputProblem({ ['\ud800']: 1 }, MAX_RUN_DATA_BYTES)).toMatchObject({ code: 'step_output_not_storable' });
  });
});

describe('outputOverLimit', () => {
  test("a run's output: the same bounds, without the run's", () => {
    expect(outputOverLimit({ a: 1 })).toBeNull();
    expect(outputOverLimit('\u0000')).toMatchObject({ code: 'output_not_storable' });
    expect(outputOverLimit('x'.repeat(MAX_STEP_OUTPUT_BYTES))).toMatchObject({ code: 'output_too_large' });
  });
});
