"""verify: run originals and translations on identical inputs and compare them."""
