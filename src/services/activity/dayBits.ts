/** The bit of a day in its month's bit set (ai_active_years, member_active_years): bit d - 1 for day d. */
export const dayBit = (day: string) => 2 ** (Number(day.slice(8, 10)) - 1);

/** Every day bit of a month: 31 bits. */
export const ALL_DAYS = 2 ** 31 - 1;
