// A video model's priced tiers: the keys of `price.per_second`. A key `<tier>+audio` (`720p+audio`)
// prices a second of that resolution with sound, where sound costs more (Veo: Google bills video
// with audio at a higher rate than video alone); a model without such a key prices sound like
// silence. Requests name the resolution (`720p`) and `generate_audio`; the domain picks the tier.

export const AUDIO_TIER_SUFFIX = '+audio';

export const isAudioTier = (tier: string): boolean => tier.endsWith(AUDIO_TIER_SUFFIX);

/** The resolutions a model is priced for (its tiers without the `+audio` ones), in file order. */
export function resolutionTiers(perSecond: Readonly<Record<string, string>>): string[] {
  return Object.keys(perSecond).filter((tier) => !isAudioTier(tier));
}

/** The tier a request at `resolution` is priced at: `<resolution>+audio` when it asked for sound and the model prices it. */
export function pricedTier(perSecond: Readonly<Record<string, string>>, resolution: string, audio: boolean): string {
  const withSound = `${resolution}${AUDIO_TIER_SUFFIX}`;
  return audio && perSecond[withSound] !== undefined ? withSound : resolution;
}
