/**
 * Test fakes shared by every module's tests (pipeline-core's test-jar): in-memory sinks, dead
 * letters and aggregates. Pure Java, no AWS SDK; the emulators stand in for AWS where its behaviour
 * matters.
 */
package dev.sluice.core.testing;
