"use client";

import { useState } from "react";
import { Button } from "../../ui/button";

/**
 * In a rewind's toast when the composer held a draft, which the rewind left in place: puts the rewound
 * message in the composer instead ("Replace draft"), and the draft back ("Restore draft").
 */
export function DraftSwap({ onSwap }: { onSwap: (useMessage: boolean) => void }) {
  const [swapped, setSwapped] = useState(false);
  return (
    <Button
      variant="outline"
      className="touch:min-h-11"
      onClick={() => {
        onSwap(!swapped);
        setSwapped(!swapped);
      }}
    >
      {swapped ? "Restore draft" : "Replace draft"}
    </Button>
  );
}
