/**
 * What every module's tests share (pipeline-core's test-jar): in-memory sinks, dead letters and
 * aggregates; event builders that start from the committed valid fixtures ({@link
 * dev.sluice.core.testing.Events}) and the records a consumer hands to a stage ({@link
 * dev.sluice.core.testing.Records}); the property-test helper ({@link dev.sluice.core.testing.Theories}).
 * Pure Java, no AWS SDK; the emulators stand in for AWS where its behaviour matters.
 */
package dev.sluice.core.testing;
