import { test } from "@fast-check/vitest"
import { metricValue, recordMetric } from "@dispatch/jobs"
import fc from "fast-check"
import { Result } from "effect"
import { expect } from "vitest"
import { metricNumber } from "../src/wire/ApiSchemas.ts"

const wire = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom("nan", "inf", "-inf", "NaN", "Infinity", "-Infinity"))

test.prop([wire])("a wire metric value, recorded and read back, is the number it spells", (value) => {
  const recorded = recordMetric(1, { name: "loss", step: 0, value: metricNumber(value) }, "t")
  if (Result.isFailure(recorded)) throw new Error("refused a valid metric")
  expect(Object.is(metricValue(recorded.success), typeof value === "number" ? value : Number(value.replace("inf", "Infinity").replace("nan", "NaN")))).toBe(true)
  expect(Number.isFinite(recorded.success.value)).toBe(true)
})
