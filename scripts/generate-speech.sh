#!/bin/sh
# Regenerates the committed speech clips under test/fixtures/audio/ (the Silero VAD tests' input):
# espeak-ng speaks a sentence, sox resamples it to 16 kHz mono float32 little-endian raw and pads
# silence on both sides so the model's probability has to go low, then high, then low again.
# Only for regenerating: tests read the committed .f32 files, and CI need not have espeak-ng or sox.
#   sh scripts/generate-speech.sh [out_dir]   (Debian: apt-get install espeak-ng sox)
set -eu

out=${1:-test/fixtures/audio}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name|voice|words-per-minute|text. Short sentences: each clip lands at about 2-3 s with its padding.
clips='hello|en-us|175|Hello from the sequence batcher.
weather|en|170|The weather is cold and windy.
numbers|en-us|190|Seven, four, nine, two.'

printf '%s\n' "$clips" | while IFS='|' read -r name voice wpm text; do
  espeak-ng -v "$voice" -s "$wpm" -w "$tmp/$name.wav" "$text"
  # -D: no dither, so the output is the same bytes on every run. pad: 0.5 s before, 0.4 s after.
  sox -D "$tmp/$name.wav" -r 16000 -c 1 -b 32 -e floating-point -L -t raw "$out/$name.f32" \
    pad 0.5 0.4
  printf '%s: %s samples\n' "$out/$name.f32" "$(($(wc -c <"$out/$name.f32") / 4))"
done
