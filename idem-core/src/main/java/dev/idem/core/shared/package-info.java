/**
 * The service-provider interface of a seen-set shared by many workers ({@code SharedSeenSet}, the
 * tags its marks carry), which idem-redis implements without depending on the engine.
 */
package dev.idem.core.shared;
