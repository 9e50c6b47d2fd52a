/** Tiny, valid media for fake content: a 1×1 red PNG and a silent 1 ms WAV (8 kHz, 8-bit mono), base64. */

/** A 1×1 red pixel, PNG, base64. */
export const RED_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/** Eight samples of silence, WAV (RIFF, PCM 8 kHz 8-bit mono), base64. */
export const SILENT_WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
