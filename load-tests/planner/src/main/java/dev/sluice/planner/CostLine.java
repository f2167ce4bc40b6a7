package dev.sluice.planner;

/** One line of the monthly cost: a service, what is billed, how much of it, and the dollars. */
public record CostLine(String service, String item, double quantity, String unit, double usd, String note) {}
