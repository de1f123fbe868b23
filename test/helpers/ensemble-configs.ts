// Ensemble configs several suites serve: the ensemble suite itself, tracing (its steps are child
// spans) and the response cache (cached at the top level). One copy, so they test the same model.

/** `simple_twice`: two `simple` steps in a row; TWO_A = 2A and TWO_B = 2B. */
export const SIMPLE_TWICE_CONFIG = `
name: "simple_twice"
platform: "ensemble"
max_batch_size: 8
input [ { name: "A" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "B" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "TWO_A" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "TWO_B" data_type: TYPE_INT32 dims: [ 16 ] } ]
ensemble_scheduling {
  step [
    { model_name: "simple" model_version: -1
      input_map { key: "INPUT0" value: "A" } input_map { key: "INPUT1" value: "B" }
      output_map { key: "OUTPUT0" value: "SUM" } output_map { key: "OUTPUT1" value: "DIFF" } },
    { model_name: "simple" model_version: -1
      input_map { key: "INPUT0" value: "SUM" } input_map { key: "INPUT1" value: "DIFF" }
      output_map { key: "OUTPUT0" value: "TWO_A" } output_map { key: "OUTPUT1" value: "TWO_B" } }
  ]
}`;
