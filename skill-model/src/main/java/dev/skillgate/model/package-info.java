/**
 * Skillgate's shared value types. JDK only; every type is immutable and validates on construction.
 *
 * <p>No type here grants a permission or claims containment: Skillgate is not a sandbox, and a
 * consented script runs with the host user's file and network access.
 */
package dev.skillgate.model;
