import type { Metadata } from "next";
import { LinkPage } from "../../link-page";

export const metadata: Metadata = { title: "Confirm your address", robots: { index: false } };

export default async function VerifyAddressPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <LinkPage
      title="Confirm your address"
      body={token ? { token } : null}
      endpoint="/api/v1/email/verify"
      label="Confirm this address"
      doneText="Thanks: the address is confirmed."
    >
      Confirm that Watch may send notifications to this address. Nothing is sent to it until you do.
    </LinkPage>
  );
}
