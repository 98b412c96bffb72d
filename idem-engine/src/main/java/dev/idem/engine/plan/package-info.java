/**
 * {@code idem plan}: a workload's numbers ({@code Workload}) turned into a recommended method and
 * its memory, from the same sizing formulas the structures use ({@code Planner}). Depends on
 * idem-core, {@code window} and {@code sort}'s memory model.
 */
package dev.idem.engine.plan;
