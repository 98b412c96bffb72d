/**
 * A job's state directory and what its checkpoints hold: {@code StateDirectory} (layout, lock),
 * {@code Manifest} (the job's identity), {@code Checkpoint} and {@code WindowCheckpoint}, their
 * JSON form, and {@code StateInspection} for {@code idem inspect}. Depends on {@code records},
 * {@code store} and {@code window}; see docs/DESIGN.md, section 4.
 */
package dev.idem.engine.state;
